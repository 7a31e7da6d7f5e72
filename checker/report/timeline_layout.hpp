// Where the swimlane SVG puts everything (timeline_svg.cpp draws it): rows,
// boxes, racing-access markers and folds. Private to checker/report.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "checker/report/timeline.hpp"

namespace heddle::timeline_detail {

inline constexpr double kLaneH = 84, kBoxH = 58, kTop = 96, kGap = 14, kCharW = 6.7;
inline constexpr double kOpCharW = 6.1, kOpLineH = 11;  // operations: 10 px text
inline constexpr double kFoldW = 52, kFoldedRowH = 40;  // the row of folded lanes
inline constexpr double kMaxWidth = 1920;  // a default picture is scaled to fit this

/// Breaks `s` into at most `max_lines` lines of `width` characters, between
/// tokens where it can (see timeline_layout.cpp); the last line of text that
/// does not fit ends in an ellipsis.
std::vector<std::string> wrap(const std::string& s, std::size_t width, std::size_t max_lines);
/// Characters as drawn (UTF-8 continuation bytes take no room).
std::size_t chars_of(const std::string& s);
/// The width of a label of `chars` characters of `char_w` pixels, padded.
double text_w(std::size_t chars, double char_w = kCharW);
/// "[i]" or "[first:last+1]" (half-open, as every report says it): the
/// elements of one racing access.
std::string elements(const AccessInfo& a);
/// The lines of racing access `k`'s marker.
std::vector<std::string> access_lines(const TimelineAccess& a, std::size_t k);

/// A run of consecutive folded steps, drawn across the rows its steps ran in.
struct Fold {
  std::uint32_t first = 0, last = 0;
  std::size_t lo = 0, hi = 0;  // its rows, top to bottom
  double x = 0;
};

/// Where everything goes. Steps are indexed by step number (element 0 unused).
/// Agents with no drawn step and no racing access share one short row at the
/// bottom ("folded lanes") instead of an empty lane each.
struct Layout {
  double label_w = 0, width = 0, height = 0, end_x = 0;
  std::vector<std::size_t> row;      // per agent: its row
  std::vector<bool> lane_folded;     // per agent: in the row of folded lanes
  std::size_t rows = 0;              // drawn lanes, plus the folded row when there is one
  std::size_t folded_lanes = 0;      // agents in the folded row
  std::vector<double> x, w;
  std::vector<int> fold_of;  // per step: its fold, or -1 when drawn
  std::vector<std::vector<std::string>> lines;
  std::vector<double> access_x, access_w;
  std::vector<Fold> folds;
  /// The top of row `r` (lanes are kLaneH tall, the folded row kFoldedRowH).
  double row_top(std::size_t r) const { return kTop + kLaneH * static_cast<double>(r); }
  double row_h(std::size_t r) const { return folded_lanes && r + 1 == rows ? kFoldedRowH : kLaneH; }
  double row_mid(std::size_t r) const { return row_top(r) + row_h(r) / 2; }
  double lane_top(std::size_t agent) const { return row_top(row[agent]); }
  double lane_mid(std::size_t agent) const { return row_mid(row[agent]); }
  /// The bottom of the last row.
  double lanes_end() const { return rows ? row_top(rows - 1) + row_h(rows - 1) : kTop; }
  bool shown(std::uint32_t step) const { return fold_of[step] < 0; }
  /// The right edge of step `f`'s box, or of its fold marker.
  double end_of(std::uint32_t f) const {
    return shown(f) ? x[f] + w[f] : folds[static_cast<std::size_t>(fold_of[f])].x + kFoldW;
  }
};

/// Places the timeline's steps, accesses and folds (see timeline_layout.cpp).
Layout layout(const Timeline& t, const TimelineOptions& o);

}  // namespace heddle::timeline_detail
