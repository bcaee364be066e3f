// SPDX-License-Identifier: MIT
// python/src/keywords.cpp: the nearest-name rule of the CLI and the config reader
// (posenc/detail/did_you_mean.hpp) for the package's one-line argument errors (posenc/_keywords.py).
#include "bindings.hpp"

#include <posenc/models/hf_families.hpp>

#include <optional>
#include <string>
#include <vector>

namespace posenc::python {

namespace {

/// The candidate did_you_mean suggests for `word`, or nothing (too far from every candidate).
std::optional<std::string> nearest_name(const std::string& word, const std::vector<std::string>& candidates)
{
    const std::string phrase = posenc::detail::did_you_mean(word, candidates);  // " (did you mean X?)" or ""
    const std::string head = " (did you mean ";
    if (phrase.size() <= head.size() + 2) return std::nullopt;
    return phrase.substr(head.size(), phrase.size() - head.size() - 2);
}

/// The model types the config reader reads (hf_families.hpp's rows), the did-you-mean candidates
/// of its refusal of an unknown one.
std::vector<std::string> known_model_types()
{
    std::vector<std::string> out;
    for (const hf::FamilyRules& f : hf::known_families) out.emplace_back(f.model_type);
    return out;
}

}  // namespace

void bind_keywords(py::module_& m)
{
    m.def("_nearest_name", &nearest_name, py::arg("word"), py::arg("candidates"),
          "The candidate within max(1, len(word) / 5) edits of word (case and '-' / '_' free), nearest\n"
          "first; None when there is none. The CLI's and the config reader's did-you-mean rule.");
    m.def("_known_model_types", &known_model_types,
          "The model types the config reader reads (the candidates of its model_type did-you-mean).");
}

}  // namespace posenc::python
