#include "sim/core/stats.hpp"

#include <stdexcept>

namespace normsim::core {

double StatSet::value(const std::string& name) const {
  for (const Stat& s : stats)
    if (s.name == name) return s.value;
  throw std::logic_error("stats: " + unit + " has no counter " + name);
}

bool StatSet::has(const std::string& name) const {
  for (const Stat& s : stats)
    if (s.name == name) return true;
  return false;
}

void StatGroup::add(std::string name, std::string unit, std::string description, const double* value) {
  entries_.push_back({{std::move(name), std::move(unit), std::move(description), 0, false}, [value] { return *value; }});
}

void StatGroup::add(std::string name, std::string unit, std::string description, const uint64_t* value) {
  entries_.push_back(
      {{std::move(name), std::move(unit), std::move(description), 0, true}, [value] { return static_cast<double>(*value); }});
}

void StatGroup::add(std::string name, std::string unit, std::string description, std::function<double()> value) {
  entries_.push_back({{std::move(name), std::move(unit), std::move(description), 0, false}, std::move(value)});
}

StatSet StatGroup::snapshot() const {
  StatSet s{unit_, {}};
  for (const Entry& e : entries_) {
    Stat st = e.stat;
    st.value = e.read();
    s.stats.push_back(std::move(st));
  }
  return s;
}

void StatGroup::append_values(std::vector<double>& out) const {
  for (const Entry& e : entries_) out.push_back(e.read());
}

}  // namespace normsim::core
