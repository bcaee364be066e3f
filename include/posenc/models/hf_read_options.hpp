// SPDX-License-Identifier: MIT
// posenc/models/hf_read_options.hpp: what a caller tells the config reader (ReadOptions) and what
// the reader tells back beside the values (ConfigWarning). Plain structs; no dependency.
#pragma once

#include <string>

namespace posenc::hf {

/// One warning Hugging Face would log while loading the config.
struct ConfigWarning {
    std::string key;  ///< key path, e.g. "rope_scaling.factor"
    std::string message;  ///< what Hugging Face would say
};

/// How the reader treats a config it cannot settle from posenc's family table alone.
struct ReadOptions {
    /// Read a model_type posenc does not know (none of hf_families.hpp's rows or refusals) with
    /// half_split pairing (rotate_half) and generic defaults, plus a warning saying so. Off (the
    /// default): such a config is refused with an error naming model_type, since the model's own
    /// code decides its pairing and the config does not say it.
    bool assume_half_split = false;
};

}  // namespace posenc::hf
