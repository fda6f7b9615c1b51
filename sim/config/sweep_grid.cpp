#include "sim/config/sweep_grid.hpp"

#include "sim/config/config_error.hpp"
#include "sim/config/yaml_reader.hpp"

namespace normsim::config {

size_t Grid::points() const {
  size_t n = axes.empty() ? 0 : 1;
  for (const auto& a : axes) n *= a.values.size();
  return n;
}

std::vector<std::pair<std::string, std::string>> Grid::point(size_t p) const {
  std::vector<std::pair<std::string, std::string>> kv(axes.size());
  size_t idx = p;
  for (size_t i = axes.size(); i-- > 0;) {
    const auto& ax = axes[i];
    kv[i] = {ax.key, ax.values[idx % ax.values.size()]};
    idx /= ax.values.size();
  }
  return kv;
}

Grid parse_grid(const std::vector<std::string>& args) {
  if (args.empty()) throw ConfigError("sweep: --grid: missing (allowed: KEY=V1,V2,... with KEY workload.* or arch.*)");
  Grid g;
  size_t points = 1;
  for (const auto& arg : args) {
    const auto eq = arg.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size())
      throw ConfigError("sweep: --grid '" + arg + "': expected KEY=V1,V2,... (allowed: workload.* or arch.* keys)");
    GridAxis ax{arg.substr(0, eq), {}};
    const std::string rest = arg.substr(eq + 1);
    for (size_t start = 0;;) {
      const size_t comma = rest.find(',', start);
      ax.values.push_back(rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    for (const auto& v : ax.values) {
      if (v.empty()) throw ConfigError("sweep: --grid '" + arg + "': empty value (allowed: KEY=V1,V2,...)");
      if (parse_override(ax.key + "=" + v).target == "gpu")
        throw ConfigError("sweep: --grid '" + arg + "': gpu keys belong to `normsim simt` (allowed: workload.*, arch.*)");
    }
    points *= ax.values.size();
    if (points > kMaxGridPoints) throw ConfigError("sweep: more than 1000000 points (allowed: up to 1000000)");
    g.axes.push_back(std::move(ax));
  }
  return g;
}

}  // namespace normsim::config
