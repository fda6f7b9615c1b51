#include "sim/config/yaml_reader.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>

#include "sim/config/bounded_file.hpp"

#include "sim/config/printable.hpp"

#include <yaml-cpp/eventhandler.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

namespace normsim::config {
struct MarkedClone;
}

// YAML::Clone copies values but not marks, so every message about a cached
// text would name line 1. A node's mark is settable only by Node's friends,
// and yaml-cpp befriends every as_if<T, S> (its conversion hook): this one
// copies the marks of a tree onto its clone, node by node.
template <>
struct YAML::as_if<normsim::config::MarkedClone, void> {
  static void copy_marks(const YAML::Node& from, const YAML::Node& to) {
    if (from.m_pNode == nullptr || to.m_pNode == nullptr) return;
    to.m_pNode->set_mark(from.m_pNode->mark());
    if (from.IsSequence()) {
      for (std::size_t i = 0; i < from.size(); ++i) copy_marks(from[i], to[i]);
    } else if (from.IsMap()) {
      // Clone rebuilds a mapping in the order it iterates, so the pairs line up.
      for (auto f = from.begin(), t = to.begin(); f != from.end() && t != to.end(); ++f, ++t) {
        copy_marks(f->first, t->first);
        copy_marks(f->second, t->second);
      }
    }
  }
};

namespace normsim::config {

namespace {
YAML::Node clone_with_marks(const YAML::Node& n) {
  YAML::Node c = YAML::Clone(n);
  YAML::as_if<MarkedClone, void>::copy_marks(n, c);
  return c;
}
}  // namespace

std::string format_config_error(const std::string& file, int line, const std::string& key, const std::string& problem,
                                const std::string& allowed) {
  std::string s = file;
  if (line > 0) s += ':' + std::to_string(line);
  s += ": ";
  if (!key.empty()) s += "key '" + key + "': ";
  s += problem;
  if (!allowed.empty()) s += " (allowed: " + allowed + ")";
  return s;
}

YamlReader::YamlReader(YAML::Node node, std::string file, std::string path)
    : node_(std::move(node)), file_(std::move(file)), path_(std::move(path)) {}

namespace {

// What is wrong with a YAML text, before a file name is put on it.
struct YamlProblem {
  int line = 0;
  std::string key, problem, allowed;
};

// Checks the event stream of a YAML text before the tree is built: yaml-cpp's
// loader keeps the first of two equal keys, ignores documents after the first
// and accepts any tag, so a config with `hidden: 64` and later `hidden: 128`
// would silently run at 64. It is a pass of its own (0.04 ms for a workload,
// 0.4 ms for h200.yaml): yaml-cpp builds its tree, with the marks every
// message needs, only in its private NodeBuilder, and checking that tree
// instead means YAML::LoadAll, which on some malformed texts never stops
// making documents where this pass stops at the second.
class StrictYamlCheck : public YAML::EventHandler {
 public:

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1)
      fail(mark, "a second YAML document after the first ('---' or text after '...')", "one document per file");
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { value(mark, "?", anchor, "~"); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    fail(mark, "an alias ('*name')", "write each value out; anchors and aliases are not supported");
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor, const std::string& v) override {
    value(mark, tag, anchor, v);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, tag, anchor, false);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, tag, anchor, true);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Frame {
    bool is_map = false, at_key = true;
    std::string key;  ///< the key whose value is being read
    std::map<std::string, int> key_lines;
  };
  static constexpr std::size_t kMaxNesting = 32;
  int documents_ = 0;
  std::vector<Frame> stack_;

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& problem, const std::string& allowed) const {
    throw YamlProblem{mark.line + 1, "", problem, allowed};
  }
  void check_node(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor) const {
    // "?" marks a plain node and "!" a quoted scalar; anything else was written.
    if (!tag.empty() && tag != "?" && tag != "!")
      fail(mark, "a YAML tag ('" + tag + "')", "untagged values; quote a string instead of tagging it");
    if (anchor != YAML::NullAnchor)
      fail(mark, "an anchor ('&name')", "write each value out; anchors and aliases are not supported");
  }
  void value(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor, const std::string& v) {
    check_node(mark, tag, anchor);
    if (stack_.empty() || !stack_.back().is_map) return;
    Frame& f = stack_.back();
    if (f.at_key) {
      const auto [it, fresh] = f.key_lines.emplace(v, mark.line + 1);
      if (!fresh)
        throw YamlProblem{mark.line + 1, path_to(v), "duplicate key (first given at line " + std::to_string(it->second) + ")",
                          "each key once per mapping"};
    }
    if (f.at_key) f.key = v;
    f.at_key = !f.at_key;
  }
  // The dotted path of `key` in the innermost mapping, through the enclosing mappings' keys.
  std::string path_to(const std::string& key) const {
    std::string p;
    for (size_t i = 0; i + 1 < stack_.size(); ++i)
      if (stack_[i].is_map) p += stack_[i].key + ".";
    return p + key;
  }
  void open(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor, bool is_map) {
    check_node(mark, tag, anchor);
    // No config nests deeper than a few levels; past this a text is not one
    // (and yaml-cpp's own limit says only "bad file").
    if (stack_.size() >= kMaxNesting)
      fail(mark, "mappings and lists nested more than " + std::to_string(kMaxNesting) + " deep",
           "at most " + std::to_string(kMaxNesting) + " levels");
    if (!stack_.empty() && stack_.back().is_map) {
      if (stack_.back().at_key) fail(mark, "a key that is a list or a mapping", "plain keys such as 'hidden:'");
      stack_.back().at_key = true;
    }
    Frame f;
    f.is_map = is_map;
    stack_.push_back(std::move(f));
  }
  void close() {
    if (!stack_.empty()) stack_.pop_back();
  }
};

YAML::Node load_checked(const std::string& text) {
  if (text.size() > kMaxConfigFileBytes)
    throw YamlProblem{0, "", "is " + std::to_string(text.size()) + " bytes",
                      "at most " + std::to_string(kMaxConfigFileBytes) + " bytes"};
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    StrictYamlCheck check;
    while (parser.HandleNextDocument(check)) {
    }
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw YamlProblem{e.mark.line + 1, "", "malformed YAML: " + e.msg, ""};
  }
}

}  // namespace

YAML::Node load_yaml_strict(const std::string& text, const std::string& file) {
  // A sweep loads the same few files once per point: each text is parsed
  // and checked once a process, and every caller gets its own deep copy
  // (overrides edit the tree).
  static std::mutex mutex;
  static std::map<std::string, YAML::Node> parsed;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = parsed.find(text); it != parsed.end()) return clone_with_marks(it->second);
  }
  YAML::Node root;
  try {
    root = load_checked(text);
  } catch (const YamlProblem& p) {
    throw ConfigError(format_config_error(file, p.line, p.key, p.problem, p.allowed));
  }
  const std::lock_guard<std::mutex> lock(mutex);
  if (parsed.size() >= 64) parsed.clear();
  parsed.emplace(text, clone_with_marks(root));
  return root;
}

YamlReader YamlReader::from_text(const std::string& text, const std::string& file) {
  const YAML::Node root = load_yaml_strict(text, file);
  if (!root.IsMap()) throw ConfigError(format_config_error(file, 1, "", "expected a mapping of keys at the top level"));
  return YamlReader(root, file, "");
}

namespace {
// A config is UTF-8 text: a NUL byte (a binary, UTF-16) or a byte sequence
// that is not UTF-8 is refused at its line, before the YAML parser sees it
// (which would call it an escape or a mapping problem).
ConfigError utf8_refusal(const std::string& text, const std::string& path, size_t at, const std::string& problem) {
  const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
  return ConfigError(format_config_error(path, line, "", problem, "a YAML file in UTF-8"));
}
void check_utf8_text(const std::string& text, const std::string& path) {
  const auto refuse = [&](size_t at, const char* problem) { return utf8_refusal(text, path, at, problem); };
  if (text.size() >= 2 && ((text[0] == '\xff' && text[1] == '\xfe') || (text[0] == '\xfe' && text[1] == '\xff')))
    throw refuse(0, "UTF-16 text (a byte-order mark)");
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == 0) throw refuse(i, "a NUL byte: not text");
    const int more = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xe ? 2 : (c >> 3) == 0x1e ? 3 : -1;
    bool ok = more >= 0 && i + static_cast<size_t>(more) < text.size() + (more == 0 ? 1 : 0);
    for (int k = 1; ok && k <= more; ++k) ok = (static_cast<unsigned char>(text[i + static_cast<size_t>(k)]) >> 6) == 0x2;
    if (!ok) {
      char problem[32];
      std::snprintf(problem, sizeof problem, "not UTF-8 (byte 0x%02x)", c);
      throw refuse(i, problem);
    }
    i += static_cast<size_t>(more) + 1;
  }
}
}  // namespace

std::string read_config_file(const std::string& path) {
  std::string text = read_bounded_file(path, {kMaxConfigFileBytes, "a YAML file"});
  check_utf8_text(text, path);
  return text;
}

YamlReader YamlReader::from_file(const std::string& path) { return from_text(read_config_file(path), path); }

Override parse_override(const std::string& text) {
  const auto eq = text.find('=');
  auto bad = [&](const std::string& why) {
    return ConfigError(format_config_error("--set", 0, text, why, "workload.KEY[.KEY]=VALUE, arch.KEY[.KEY]=VALUE, gpu.KEY[.KEY]=VALUE"));
  };
  if (eq == std::string::npos || eq == 0) throw bad("expected KEY=VALUE");
  Override o;
  o.text = text;
  o.value = text.substr(eq + 1);
  std::string key = text.substr(0, eq);
  size_t start = 0;
  while (true) {
    const size_t dot = key.find('.', start);
    const std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (part.empty()) throw bad("empty key in path");
    if (o.target.empty()) o.target = part;
    else o.path.push_back(part);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (o.target != "workload" && o.target != "arch" && o.target != "gpu")
    throw bad("the key must start with workload., arch. or gpu.");
  if (o.path.empty()) throw bad("no key after '" + o.target + "'");
  // An empty value would be YAML's null, and refused as whatever the key is not.
  if (o.value.find_first_not_of(" \t") == std::string::npos) throw bad("no value after '='");
  return o;
}

void YamlReader::apply(const Override& o) {
  YAML::Node value;
  try {
    value = load_checked(o.value);
  } catch (const YamlProblem& p) {
    throw ConfigError(format_config_error("--set", 0, o.text, "value: " + p.problem, p.allowed));
  }
  // Walk with fresh handles: yaml-cpp's operator= on a handle would rebind, not assign.
  std::vector<YAML::Node> chain{node_};
  for (size_t i = 0; i + 1 < o.path.size(); ++i) {
    YAML::Node next = chain.back()[o.path[i]];
    if (next && !next.IsMap())
      throw ConfigError(format_config_error("--set", 0, o.text, "'" + o.path[i] + "' is not a mapping in " + file_));
    if (!next) chain.back()[o.path[i]] = YAML::Node(YAML::NodeType::Map);
    chain.push_back(chain.back()[o.path[i]]);
  }
  chain.back()[o.path.back()] = value;
  std::string full = path_;
  for (const auto& k : o.path) full += (full.empty() ? "" : ".") + k;
  (*set_by_)[full] = o.text;
}

std::string YamlReader::emit() const {
  YAML::Emitter e;
  e << node_;
  return std::string(e.c_str()) + "\n";
}

void YamlReader::erase(const std::string& key, const Override& by) {
  if (node_.IsMap()) node_.remove(key);
  (*set_by_)[key_path(key)] = by.text;
}

std::string YamlReader::override_of(const std::string& full_key) const {
  // The key itself, or a mapping above it that an override replaced whole.
  for (std::string k = full_key;;) {
    if (auto it = set_by_->find(k); it != set_by_->end()) return it->second;
    const auto dot = k.rfind('.');
    if (dot == std::string::npos) return {};
    k.resize(dot);
  }
}

std::string origin_of(const std::string& source, const std::map<std::string, std::string>& set_by, const std::string& key) {
  for (std::string k = key;;) {
    if (auto it = set_by.find(k); it != set_by.end()) return "--set " + it->second;
    const auto dot = k.rfind('.');
    if (dot == std::string::npos) return source;
    k.resize(dot);
  }
}

bool YamlReader::has(const std::string& key) const { return static_cast<bool>(node_[key]); }

int YamlReader::line_of(const std::string& key) const {
  const YAML::Node n = node_[key];
  if (n) return n.Mark().line + 1;
  return node_.Mark().line + 1;
}

void YamlReader::fail(const std::string& key, const std::string& problem, const std::string& allowed) const {
  const std::string full = key.empty() ? path_ : key_path(key);
  if (const std::string set = override_of(full); !set.empty())
    throw ConfigError(format_config_error("--set " + set, 0, full, problem, allowed));
  throw ConfigError(format_config_error(file_, line_of(key), full, problem, allowed));
}

void YamlReader::fail_rule(const std::string& key, const std::vector<std::string>& involved, const std::string& problem,
                           const std::string& allowed) const {
  if (override_of(key_path(key)).empty())
    for (const auto& k : involved)
      if (const std::string set = override_of(key_path(k)); !set.empty())
        throw ConfigError(format_config_error("--set " + set, 0, key_path(key), problem, allowed));
  fail(key, problem, allowed);
}

void YamlReader::fail_path(const std::vector<std::string>& path, const std::string& problem,
                           const std::string& allowed) const {
  if (path.size() <= 1) fail(path.empty() ? std::string() : path[0], problem, allowed);
  // Fresh handles down the path (assigning a yaml-cpp handle would write through it).
  std::vector<YAML::Node> chain{node_};
  int line = node_.Mark().line + 1;
  std::string key;
  for (const auto& k : path) {
    key += (key.empty() ? "" : ".") + k;
    const YAML::Node& cur = chain.back();
    if (!cur || !cur.IsMap()) continue;
    const YAML::Node next = static_cast<const YAML::Node&>(cur)[k];
    if (!next) {
      chain.push_back(YAML::Node(YAML::NodeType::Undefined));
      continue;
    }
    line = next.Mark().line + 1;
    chain.push_back(next);
  }
  if (const std::string set = override_of(key_path(key)); !set.empty())
    throw ConfigError(format_config_error("--set " + set, 0, key_path(key), problem, allowed));
  throw ConfigError(format_config_error(file_, line, key_path(key), problem, allowed));
}

std::optional<std::string> YamlReader::text_at(const std::vector<std::string>& path) const {
  std::vector<YAML::Node> chain{node_};  // fresh handles, as in fail_path
  for (const auto& k : path) {
    const YAML::Node& cur = chain.back();
    if (!cur || !cur.IsMap()) return std::nullopt;
    const YAML::Node next = static_cast<const YAML::Node&>(cur)[k];
    if (!next) return std::nullopt;
    chain.push_back(next);
  }
  return chain.back().IsScalar() ? chain.back().Scalar() : std::string();
}

YAML::Node YamlReader::scalar(const std::string& key) const {
  read_.insert(key);
  const YAML::Node n = node_[key];
  if (n && !n.IsScalar()) fail(key, "expected a single value, found a " + std::string(n.IsMap() ? "mapping" : "list"));
  return n;
}

std::optional<int64_t> YamlReader::get_int(const std::string& key, int64_t lo, int64_t hi) {
  const YAML::Node n = scalar(key);
  if (!n) return std::nullopt;
  const std::string text = n.Scalar();
  int64_t v = 0;
  // Integers only: "1.5", "true", "1e3" are wrong types, not silently converted.
  size_t used = 0;
  try {
    v = std::stoll(text, &used, 0);
  } catch (...) {
    used = 0;
  }
  if (used == 0 || used != text.size())
    fail(key, "expected an integer, got '" + text + "'", std::to_string(lo) + ".." + std::to_string(hi));
  if (v < lo || v > hi)
    fail(key, "value " + std::to_string(v) + " out of range", std::to_string(lo) + ".." + std::to_string(hi));
  return v;
}

double YamlReader::get_positive(const std::string& key, double def) {
  const double v = get_double(key).value_or(def);
  if (!(v > 0)) fail(key, "must be > 0", "> 0");
  return v;
}

std::optional<double> YamlReader::get_double(const std::string& key) {
  const YAML::Node n = scalar(key);
  if (!n) return std::nullopt;
  const std::string text = n.Scalar();
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (...) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(v))
    fail(key, "expected a finite number, got '" + text + "'");
  return v;
}

std::optional<bool> YamlReader::get_bool(const std::string& key) {
  const YAML::Node n = scalar(key);
  if (!n) return std::nullopt;
  const std::string t = n.Scalar();
  if (t == "true") return true;
  if (t == "false") return false;
  fail(key, "expected a boolean, got '" + t + "'", "true, false");
}

std::optional<std::string> YamlReader::get_string(const std::string& key) {
  const YAML::Node n = scalar(key);
  if (!n) return std::nullopt;
  // Names and paths are echoed in logs and tables: no control characters.
  const std::string& v = n.Scalar();
  if (printable(v) != v) fail(key, "control characters in '" + printable(v) + "'", "printable text");
  return v;
}

std::optional<std::string> YamlReader::get_choice(const std::string& key, const std::vector<std::string>& allowed) {
  auto s = get_string(key);
  if (!s) return std::nullopt;
  for (const auto& a : allowed)
    if (*s == a) return s;
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  fail(key, "unknown value '" + *s + "'", list);
}

bool YamlReader::is_map(const std::string& key) const {
  const YAML::Node n = node_[key];
  return n && n.IsMap();
}

std::optional<YamlReader> YamlReader::get_map(const std::string& key) {
  read_.insert(key);
  const YAML::Node n = node_[key];
  if (!n) return std::nullopt;
  if (!n.IsMap()) fail(key, "expected a mapping of keys");
  YamlReader child(n, file_, key_path(key));
  child.set_by_ = set_by_;
  return child;
}

namespace {
// A mapping's key as text; a key that is itself a list or a mapping is refused.
std::string key_text(const YAML::Node& key, const std::string& file, const std::string& path) {
  if (!key.IsScalar())
    throw ConfigError(format_config_error(file, key.Mark().line + 1, path, "a key that is not a single value",
                                          "plain keys such as 'hidden:'"));
  return key.Scalar();
}
}  // namespace

std::vector<std::string> YamlReader::keys() const {
  std::vector<std::string> k;
  for (const auto& kv : node_) k.push_back(key_text(kv.first, file_, path_));
  return k;
}

void YamlReader::finish(const std::vector<std::string>& allowed_keys) const {
  for (const auto& kv : node_) {
    const std::string k = key_text(kv.first, file_, path_);
    if (read_.count(k)) continue;
    std::string list;
    for (const auto& a : allowed_keys) list += (list.empty() ? "" : ", ") + a;
    if (const std::string set = override_of(key_path(k)); !set.empty())
      throw ConfigError(format_config_error("--set " + set, 0, key_path(k), "unknown key", list));
    throw ConfigError(format_config_error(file_, kv.first.Mark().line + 1, key_path(k), "unknown key", list));
  }
}

}  // namespace normsim::config
