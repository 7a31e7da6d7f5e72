#include "test/ci/mini_xml.hpp"

#include <cctype>
#include <sstream>
#include <stdexcept>

namespace heddle::test {
namespace {
class Reader {
 public:
  explicit Reader(const std::string& s) : s_(s) {}

  XmlNode document() {
    skip_misc();
    XmlNode root = element();
    skip_misc();
    if (i_ != s_.size()) fail("content after the root element");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error("malformed XML at offset " + std::to_string(i_) + ": " + why);
  }
  bool starts(const char* p) const { return s_.compare(i_, std::char_traits<char>::length(p), p) == 0; }
  void skip_ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  void skip_to(const char* end) {
    auto j = s_.find(end, i_);
    if (j == std::string::npos) fail(std::string("missing ") + end);
    i_ = j + std::char_traits<char>::length(end);
  }
  void skip_misc() {  // prolog, comments, whitespace
    for (;;) {
      skip_ws();
      if (starts("<?")) skip_to("?>");
      else if (starts("<!--")) skip_to("-->");
      else if (starts("<!DOCTYPE")) skip_to(">");
      else return;
    }
  }
  std::string name() {
    std::size_t b = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '-' ||
                              s_[i_] == '_' || s_[i_] == ':' || s_[i_] == '.'))
      ++i_;
    if (b == i_) fail("expected a name");
    return s_.substr(b, i_ - b);
  }
  std::string decode(const std::string& raw) {
    std::string out;
    for (std::size_t k = 0; k < raw.size(); ++k) {
      if (raw[k] == '<') fail("raw '<' in text");
      if (raw[k] != '&') {
        out += raw[k];
        continue;
      }
      auto semi = raw.find(';', k);
      if (semi == std::string::npos) fail("unterminated entity");
      std::string ent = raw.substr(k + 1, semi - k - 1);
      if (ent == "amp") out += '&';
      else if (ent == "lt") out += '<';
      else if (ent == "gt") out += '>';
      else if (ent == "quot") out += '"';
      else if (ent == "apos") out += '\'';
      else if (!ent.empty() && ent[0] == '#') out += '?';
      else fail("unknown entity &" + ent + ";");
      k = semi;
    }
    return out;
  }
  XmlNode element() {
    if (!starts("<")) fail("expected '<'");
    ++i_;
    XmlNode n;
    n.name = name();
    for (;;) {
      skip_ws();
      if (starts("/>")) {
        i_ += 2;
        return n;
      }
      if (starts(">")) {
        ++i_;
        break;
      }
      std::string key = name();
      skip_ws();
      if (!starts("=")) fail("expected '=' after attribute " + key);
      ++i_;
      skip_ws();
      char q = i_ < s_.size() ? s_[i_] : '\0';
      if (q != '"' && q != '\'') fail("expected a quoted value");
      auto end = s_.find(q, i_ + 1);
      if (end == std::string::npos) fail("unterminated attribute value");
      if (n.attrs.count(key)) fail("duplicate attribute " + key);
      n.attrs[key] = decode(s_.substr(i_ + 1, end - i_ - 1));
      i_ = end + 1;
    }
    for (;;) {
      auto lt = s_.find('<', i_);
      if (lt == std::string::npos) fail("unclosed element " + n.name);
      n.text += decode(s_.substr(i_, lt - i_));
      i_ = lt;
      if (starts("<!--")) {
        skip_to("-->");
      } else if (starts("</")) {
        i_ += 2;
        if (name() != n.name) fail("mismatched closing tag for " + n.name);
        skip_ws();
        if (!starts(">")) fail("expected '>'");
        ++i_;
        return n;
      } else {
        n.children.push_back(element());
      }
    }
  }

  const std::string& s_;
  std::size_t i_ = 0;
};

void collect(const XmlNode& n, const std::string& name, std::vector<const XmlNode*>& out) {
  if (name.empty() || n.name == name) out.push_back(&n);
  for (const auto& c : n.children) collect(c, name, out);
}
}  // namespace

std::string XmlNode::attr(const std::string& key) const {
  auto it = attrs.find(key);
  return it == attrs.end() ? "" : it->second;
}

bool XmlNode::has_class(const std::string& cls) const {
  std::istringstream in(attr("class"));
  for (std::string w; in >> w;)
    if (w == cls) return true;
  return false;
}

XmlNode parse_xml(const std::string& text) { return Reader(text).document(); }

std::vector<const XmlNode*> find_all(const XmlNode& root, const std::string& name) {
  std::vector<const XmlNode*> out;
  collect(root, name, out);
  return out;
}

}  // namespace heddle::test
