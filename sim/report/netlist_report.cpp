#include "sim/report/netlist_report.hpp"

#include <algorithm>
#include <sstream>

#include "sim/asic/unit_registry.hpp"

namespace normsim::report {

namespace {
nlohmann::json end_json(const asic::Netlist::End& e) { return {{"unit", e.unit}, {"port", e.port}}; }
std::string end_text(const nlohmann::json& e) {
  return e["unit"].get<std::string>().empty() ? "(none)" : e["unit"].get<std::string>() + "." + e["port"].get<std::string>();
}
// A memory's far end is its model, not a unit.
std::string writer_text(const nlohmann::json& c) {
  return c["kind"] == "memory" ? "(the " + c["name"].get<std::string>() + " model)" : end_text(c["writer"]);
}
std::string kind_text(const nlohmann::json& c) {
  if (c["kind"] == "signal") return "signal of a cycle";
  if (c["kind"] == "memory") return "memory of transfers";
  if (c["kind"] == "transport")
    return c["token"] == "row" ? std::string("transport of a row") : "transport of " + c["token"].get<std::string>();
  return "FIFO " + std::to_string(c["depth_entries"].get<int>()) + " x " + c["token"].get<std::string>();
}
// A unit's Verilog, its rtl_models/ prefix dropped: "unit/input_path.v, residual_add.v".
std::string rtl_text(const nlohmann::json& files, const char* sep) {
  std::string out;
  for (const auto& f : files) out += (out.empty() ? "" : sep) + f.get<std::string>().substr(std::string("rtl_models/").size());
  return out;
}
// Whether its control is in RTL (rtl_models/unit/), checked edge for edge by `run --rtl-full`.
bool control_in_rtl(const nlohmann::json& files) {
  return std::any_of(files.begin(), files.end(), [](const auto& f) { return f.template get<std::string>().starts_with("rtl_models/unit/"); });
}
}  // namespace

nlohmann::json netlist_report_json(const std::string& workload, const config::Arch& arch, const std::string& path,
                                   const asic::Netlist& n, const config::AsicConfig& cfg) {
  const nlohmann::json echo = config::asic_params().echo(cfg);
  const nlohmann::json arch_echo = config::arch_params().echo(arch);
  nlohmann::json units = nlohmann::json::array();
  for (const asic::AsicUnitEntry* e : n.units) {
    nlohmann::json ports = nlohmann::json::array();
    for (const asic::PortDecl& p : e->ports)
      // A port this pass leaves unbound (a transport no built unit answers) is no part of its design.
      if (std::any_of(n.connections.begin(), n.connections.end(), [&](const auto& k) { return k.channel->name == p.channel; }))
        ports.push_back({{"port", p.port}, {"channel", p.channel}, {"direction", p.dir == asic::PortDir::in ? "in" : "out"}});
    // A unit works on the rows, after them, or both (a phase a row and one after).
    const char* phase = !e->after_rows ? "rows" : e->make ? "rows_then_after_rows" : "after_rows";
    // Its own keys, asic.<name> (a unit with none takes the accelerator's).
    nlohmann::json params = nlohmann::json::object();
    const std::string name(e->name);
    if (echo.contains(name) && echo[name].is_object())
      for (const auto& [key, value] : echo[name].items())
        params[key] = {{"value", value}, {"unit", config::asic_params().unit_of(name + "." + key)}};
    nlohmann::json rtl = nlohmann::json::array();
    for (const std::string_view stem : e->rtl) rtl.push_back("rtl_models/" + std::string(stem) + ".v");
    nlohmann::json unit = {{"name", e->name}, {"phase", phase},   {"summary", e->summary},
                           {"params", params}, {"ports", ports}, {"rtl", rtl}};
    // Its arithmetic's section of the arch (absent where the arithmetic is fp32: the section is a fixed datapath's).
    const std::string section(e->arithmetic_section);
    if (!section.empty() && arch_echo.contains(section) && arch_echo[section].is_object() && !arch_echo[section].empty()) {
      nlohmann::json values = nlohmann::json::object();
      for (const auto& [key, value] : arch_echo[section].items())
        values[key] = {{"value", value}, {"unit", config::arch_params().unit_of(section + "." + key)}};
      unit["arithmetic"] = {{"section", "arch." + section}, {"params", values}};
    }
    units.push_back(unit);
  }
  nlohmann::json channels = nlohmann::json::array();
  for (const asic::Netlist::Connection& k : n.connections) {
    nlohmann::json readers = nlohmann::json::array();
    for (const auto& r : k.readers) readers.push_back(end_json(r));
    channels.push_back({{"name", k.channel->name},
                        {"kind", k.channel->kind == asic::ChannelKind::signal      ? "signal"
                                 : k.channel->kind == asic::ChannelKind::transport ? "transport"
                                 : k.channel->kind == asic::ChannelKind::memory    ? "memory"
                                                                                   : "fifo"},
                        {"token", k.channel->token},
                        {"depth_entries", k.depth},
                        {"summary", k.channel->summary},
                        {"writer", end_json(k.writer)},
                        {"readers", readers}});
  }
  return {{"workload", workload}, {"arch", arch.name}, {"path", path}, {"pass", n.pass}, {"units", units}, {"channels", channels}};
}

std::string netlist_report_text(const nlohmann::json& r) {
  std::ostringstream o;
  o << "netlist of " << r["workload"].get<std::string>() << " on " << r["arch"].get<std::string>() << " ("
    << r["path"].get<std::string>() << ", " << r["pass"].get<std::string>() << " pass): " << r["units"].size()
    << " units, " << r["channels"].size() << " channels\n\nunits, in elaboration order:\n";
  size_t w = 0;
  for (const auto& u : r["units"]) w = std::max(w, u["name"].get<std::string>().size());
  for (const auto& u : r["units"]) {
    const std::string name = u["name"];
    o << "  " << name << std::string(w - name.size() + 2, ' ') << (u["phase"] == "after_rows"             ? "(after the rows) "
                                                       : u["phase"] == "rows_then_after_rows" ? "(and after the rows) "
                                                                                              : "")
      << u["summary"].get<std::string>() << "\n";
    // A section's keys: "key value unit, ...".
    auto keys_text = [](const nlohmann::json& params) {
      std::string keys;
      for (const auto& [key, p] : params.items()) {
        const std::string value = p["value"].is_string() ? p["value"].get<std::string>() : p["value"].dump();
        keys += (keys.empty() ? "" : ", ") + key + " " + value +
                (p["unit"].get<std::string>().empty() ? "" : " " + p["unit"].get<std::string>());
      }
      return keys;
    };
    if (u.contains("arithmetic"))
      o << "  " << std::string(w + 2, ' ') << u["arithmetic"]["section"].get<std::string>() << ": "
        << keys_text(u["arithmetic"]["params"]) << "\n";
    if (!u["params"].empty()) o << "  " << std::string(w + 2, ' ') << "asic." << name << ": " << keys_text(u["params"]) << "\n";
    if (!u["rtl"].empty()) o << "  " << std::string(w + 2, ' ') << "rtl: " << rtl_text(u["rtl"], ", ") << "\n";
  }
  o << "\nchannels (writer -> reader):\n";
  size_t wn = 0, wk = 0;
  for (const auto& c : r["channels"]) {
    wn = std::max(wn, c["name"].get<std::string>().size());
    wk = std::max(wk, kind_text(c).size());
  }
  for (const auto& c : r["channels"]) {
    const std::string name = c["name"], kind = kind_text(c);
    std::string readers;
    for (const auto& e : c["readers"]) readers += (readers.empty() ? "" : ", ") + end_text(e);
    o << "  " << name << std::string(wn - name.size() + 2, ' ') << kind << std::string(wk - kind.size() + 2, ' ')
      << writer_text(c) << " -> " << (readers.empty() ? "(none)" : readers) << "\n";
  }
  return o.str();
}

std::string netlist_report_dot(const nlohmann::json& r) {
  std::ostringstream o;
  o << "digraph netlist {\n  label=\"" << r["workload"].get<std::string>() << " on " << r["arch"].get<std::string>() << " ("
    << r["path"].get<std::string>() << ", " << r["pass"].get<std::string>() << " pass)\";\n  fontname=\"Helvetica\";\n  rankdir=LR;\n"
    << "  node [shape=box, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n";
  // Each unit with its Verilog (rtl_models/); a unit whose control has no
  // RTL for this pass (its datapath may) is drawn dashed: the control's RTL
  // is the forward's, a backward's is all dashed.
  const bool backward = r["pass"].get<std::string>().ends_with("backward");
  for (const auto& u : r["units"]) {
    const std::string name = u["name"];
    o << "  \"" << name << "\" [label=\"" << name << (u["rtl"].empty() ? "" : "\\n" + rtl_text(u["rtl"], "\\n")) << "\""
      << (control_in_rtl(u["rtl"]) && !backward ? "" : ", style=dashed") << "];\n";
  }
  for (const auto& c : r["channels"]) {
    // A memory: a node of its own, an edge to each unit it serves.
    if (c["kind"] == "memory") {
      const std::string m = c["name"];
      o << "  \"" << m << "\" [shape=cylinder];\n";
      for (const auto& e : c["readers"]) o << "  \"" << m << "\" -> \"" << e["unit"].get<std::string>() << "\" [style=dotted, dir=both];\n";
      continue;
    }
    const std::string label = c["name"].get<std::string>() + "\\n" + kind_text(c);
    const std::string style = c["kind"] == "signal" ? ", style=dashed" : c["kind"] == "transport" ? ", style=bold" : "";
    const std::string writer = c["writer"]["unit"];
    for (const auto& e : c["readers"]) {
      if (writer.empty()) continue;
      o << "  \"" << writer << "\" -> \"" << e["unit"].get<std::string>() << "\" [label=\"" << label << "\"" << style << "];\n";
    }
  }
  o << "}\n";
  return o.str();
}

}  // namespace normsim::report
