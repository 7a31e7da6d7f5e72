// A small XML reader for tests: enough to check the structure of JUnit and
// SVG files (elements, attributes, text) and to reject malformed ones.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace heddle::test {

/// One element with its attributes, text (entities decoded) and children.
struct XmlNode {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::string text;
  std::vector<XmlNode> children;
  /// The attribute's value, or "" when absent.
  std::string attr(const std::string& key) const;
  /// True when the space-separated "class" attribute contains `cls`.
  bool has_class(const std::string& cls) const;
};

/// Parses a document and returns its root element; throws std::runtime_error
/// naming the offset on malformed XML (unclosed or mismatched tags, bad
/// attributes, raw '<' or unknown entities in text).
XmlNode parse_xml(const std::string& text);

/// Every descendant of `root` (and root itself) named `name` ("" = any), in document order.
std::vector<const XmlNode*> find_all(const XmlNode& root, const std::string& name);

}  // namespace heddle::test
