#pragma once
// One mechanism for every table of settable parameters (the fabric's, the hosts' costs, the
// LogGOPS model's): each parameter has a name, a unit and a meaning, parses its own text
// with its range checks, and reads back as text, so that --set-style options, parameter
// files, --help-params and the configuration dump all go through the same rows.

#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "collsim/common/spelling.hpp"

namespace collsim {

template <typename Params>
struct Parameter {
  std::string name;
  std::string unit;  // "bytes", "time", "count", "ratio", "bool", "enum:a|b|c", "ns/byte", ...
  std::string help;
  // Throws std::invalid_argument naming the parameter and what it expects.
  std::function<void(Params&, std::string_view)> set;
  std::function<std::string(const Params&)> get;
};

template <typename Params>
class ParameterTable {
 public:
  // `kind` names the parameters in messages and help: "fabric parameter".
  ParameterTable(std::string kind, std::vector<Parameter<Params>> rows) : kind_(std::move(kind)), rows_(std::move(rows)) {}

  const std::string& kind() const { return kind_; }
  const std::vector<Parameter<Params>>& rows() const { return rows_; }

  const Parameter<Params>* find(std::string_view name) const {
    for (const Parameter<Params>& p : rows_)
      if (p.name == name) return &p;
    return nullptr;
  }

  // An unknown name is std::invalid_argument listing the known ones (and the nearest).
  void set(Params& params, std::string_view name, std::string_view value) const {
    if (const Parameter<Params>* p = find(name)) {
      p->set(params, value);
      return;
    }
    std::vector<std::string> names;
    std::string known;
    for (const Parameter<Params>& p : rows_) {
      names.push_back(p.name);
      known += (known.empty() ? "" : ", ") + p.name;
    }
    const std::string near = closest_word(std::string(name), names);
    throw std::invalid_argument("unknown " + kind_ + " '" + std::string(name) + "'" +
                                (near.empty() ? "" : " (did you mean " + near + "?)") + "; known: " + known);
  }

  std::map<std::string, std::string> values(const Params& params) const {
    std::map<std::string, std::string> out;
    for (const Parameter<Params>& p : rows_) out[p.name] = p.get(params);
    return out;
  }

  // One line per parameter, "  name = default  [unit] meaning", with `defaults`' values.
  std::string help(const Params& defaults) const {
    std::string out;
    for (const Parameter<Params>& p : rows_)
      out += "  " + p.name + " = " + p.get(defaults) + "  [" + p.unit + "] " + p.help + "\n";
    return out;
  }

 private:
  std::string kind_;
  std::vector<Parameter<Params>> rows_;
};

}  // namespace collsim
