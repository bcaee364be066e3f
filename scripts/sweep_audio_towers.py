#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Audio towers' RoPE, computed by transformers' own code (expected values of tests/towers).

Usage (Debian's Python and Debian's torch, as scripts/sweep-transformers.py; not run by CI, its
output is committed):

    /usr/bin/python3 scripts/sweep_audio_towers.py TRANSFORMERS_SRC [--commit SHORT_SHA]
                                                   [--out tests/data/transformers_sweep_audio_towers.json]
    /usr/bin/python3 scripts/sweep_audio_towers.py TRANSFORMERS_5_25_SRC --commit v5.25.0 \
        --only dots3_note_audio_encoder,nemotron3_5_transcribe_asr_audio,nemotron3_diarization_audio,pocket_tts_audio_tokenizer \
        --out tests/data/transformers_sweep_audio_towers_5_25.json

The import stand-ins for Debian's torch 1.13 are scripts/sweep-transformers.py's
(prepare_environment) and scripts/sweep_towers.py's (stand_in_torch).

For each audio tower of TOWERS (a 1-D RoPE over frames) and each config of CASES (the
configuration class's defaults, then a few keys set as a user's config.json sets them), the script
builds the configuration class, builds the tower's own rotary module from it and records:

  - `config`: the config as a config.json holds it (the class's to_dict()); for a wrapper
    (glmasr, pe_audio, lasr_ctc) the wrapper's to_dict(), the tower nested under `nested`;
  - `inv_freq`: the module's inverse frequencies (float32, written exactly);
  - `head_dim`: the head width the tower's attention splits q and k into (its attention module's
    head_dim attribute, from one built layer);
  - `positions`, `cos`, `sin`: the module's forward on those position ids (float32), the first
    half of each row (the table is cat(freqs, freqs); `table_is_cat` checks it);
  - `pairs`: for frequency j, the two head dims the modeling file's own apply_rotary_pos_emb
    moves into each other when only column j has a non-zero angle (pi / 2): probed on unit
    vectors along every head dim of a full head (dims past the rotated part stay put).

The output holds facts only (numbers, config values); no transformers code is copied.
"""
import argparse
import copy
import importlib
import importlib.util
import json
import math
import os
import sys

# model_type: (modeling module, rotary class, attention class, wrapper model_type, wrapper key)
TOWERS = {
    "mimi": ("mimi", "MimiRotaryEmbedding", "MimiAttention", None, None),
    "glmasr_encoder": ("glmasr", "GlmAsrRotaryEmbedding", "GlmAsrAttention", "glmasr", "audio_config"),
    "lasr_encoder": ("lasr", "LasrEncoderRotaryEmbedding", "LasrEncoderAttention", "lasr_ctc", "encoder_config"),
    "pe_audio_encoder": ("pe_audio", "PeAudioEncoderRotaryEmbedding", "PeAudioEncoderAttention", "pe_audio",
                         "audio_config"),
    # transformers 5.25.0 (run with --only these four and --out ..._5_25.json)
    "dots3_note_audio_encoder": ("dots3_note", "Dots3NoteAudioRotaryEmbedding", "Dots3NoteAudioAttention", "dots3_note",
                                 "audio_config"),
    "nemotron3_5_transcribe_asr_audio": ("nemotron3_5_transcribe", "Nemotron3_5TranscribeRotaryEmbedding",
                                         "Nemotron3_5TranscribeAttention", "nemotron3_5_transcribe_audio", "asr_config"),
    "nemotron3_diarization_audio": ("nemotron3_diarization", "Nemotron3DiarizationRotaryEmbedding",
                                    "Nemotron3DiarizationAttention", "nemotron3_diarization", "audio_config"),
    "pocket_tts_audio_tokenizer": ("pocket_tts_audio_tokenizer", "PocketTTSAudioTokenizerRotaryEmbedding",
                                   "PocketTTSAudioTokenizerAttention", None, None),
}
DECBA1D2 = ["mimi", "glmasr_encoder", "lasr_encoder", "pe_audio_encoder"]

# Keys a user's config.json sets on the tower (None: the class defaults alone).
CASES = [
    None,
    {"rope_parameters": {"rope_type": "default", "rope_theta": 50000.0}},
    {"hidden_size": 768, "num_attention_heads": 8},
    {"rope_theta": 30000.0},
    {"head_dim": 32},
    {"rope_parameters": {"rope_type": "default"}},
    {"rope_parameters": {"rope_type": "default"}, "rope_theta": 777.0},
    {"partial_rotary_factor": 0.25},
]

POSITIONS = [0, 1, 2, 3, 100, 4095]


def load_sibling(name, filename):
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(name, os.path.join(here, filename))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stored(config):
    return {k: v for k, v in config.to_dict().items()
            if isinstance(v, (int, float, str, bool, list, dict, type(None))) and not k.startswith("_")}


def probe_pairs(torch, apply, n_freq, head_dim):
    pairs = []
    for j in range(n_freq):
        freqs = torch.zeros(1, 1, n_freq)
        freqs[..., j] = math.pi / 2
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos(), emb.sin()
        moved = []
        for d in range(head_dim):
            q = torch.zeros(1, 1, 1, head_dim)
            q[..., d] = 1.0
            out, _ = apply(q, q.clone(), cos, sin)
            if abs(float(out[0, 0, 0, d]) - 1.0) > 1e-6:
                moved.append(d)
        pairs.append(moved)
    return pairs


def attention_head_dim(module, attention_cls, config):
    attention = getattr(module, attention_cls)(config, layer_idx=0) if "layer_idx" in \
        getattr(module, attention_cls).__init__.__code__.co_varnames else getattr(module, attention_cls)(config)
    return int(attention.head_dim)


def sweep_case(torch, auto, model_type, keys):
    folder, rotary_cls, attention_cls, wrapper, wrapper_key = TOWERS[model_type]
    module = importlib.import_module(f"transformers.models.{folder}.modeling_{folder}")
    config = auto.CONFIG_MAPPING[model_type](**copy.deepcopy(keys or {}))  # the class edits dicts it is given
    rotary = getattr(module, rotary_cls)(config)
    x = torch.zeros(1, len(POSITIONS), 1, dtype=torch.float32)
    cos, sin = rotary(x, torch.tensor([POSITIONS], dtype=torch.long))
    n = rotary.inv_freq.shape[0]
    entry = {"model_type": model_type, "keys": keys, "config": stored(config),
             "rotary_class": rotary_cls, "head_dim": attention_head_dim(module, attention_cls, config),
             "inv_freq": [float(v) for v in rotary.inv_freq.tolist()],
             "attention_scaling": float(rotary.attention_scaling),
             "table_is_cat": bool(torch.equal(cos[..., :n], cos[..., n:])),
             "positions": POSITIONS,
             "cos": [[float(v) for v in row[:n]] for row in cos[0].tolist()],
             "sin": [[float(v) for v in row[:n]] for row in sin[0].tolist()]}
    entry["pairs"] = probe_pairs(torch, module.apply_rotary_pos_emb, n, entry["head_dim"])
    if keys is None and wrapper:
        outer = auto.CONFIG_MAPPING[wrapper]()
        entry["wrapper"] = {"model_type": wrapper, "key": wrapper_key, "config": stored(outer)}
    return entry


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("src", help="the src folder of a transformers checkout")
    parser.add_argument("--commit", default="")
    parser.add_argument("--only", default=",".join(DECBA1D2), help="comma-separated model types (default: decba1d2's)")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                                      "data", "transformers_sweep_audio_towers.json"))
    args = parser.parse_args()
    sweep = load_sibling("sweep_transformers", "sweep-transformers.py")
    torch = sweep.prepare_environment(os.path.abspath(args.src))
    import transformers
    from transformers.models.auto import configuration_auto as auto
    load_sibling("sweep_towers", "sweep_towers.py").stand_in_torch(torch)
    cases = []
    for model_type in [m for m in args.only.split(",") if m]:
        for keys in CASES:
            with torch.no_grad():
                cases.append(sweep_case(torch, auto, model_type, keys))
            print(f"{model_type} {keys}: swept", file=sys.stderr)
    data = {"source": "transformers " + transformers.__version__ + (" at " + args.commit if args.commit else ""),
            "torch": torch.__version__, "cases": cases}
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("{\n" + ",\n".join(
            f"{json.dumps(k)}:" + ("[\n" + ",\n".join(json.dumps(c, separators=(",", ":")) for c in v) + "\n]"
                                  if k == "cases" else json.dumps(v))
            for k, v in data.items()) + "\n}\n")
    print(f"{len(cases)} cases -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
