# SPDX-License-Identifier: MIT
# Runs the posenc-inspect binary the way a user does and checks what docs/cli.md promises:
#   - --help, --version and --list-presets succeed; the required presets are listed;
#   - the demo's command writes three SVG files that xmllint (Debian libxml2-utils) accepts as
#     well-formed XML and rsvg-convert (librsvg2-bin, when installed) renders to PNG, and the turns chart has as many red bars as lesson C2-5 says
#     (Qwen3-8B x4: 24 for direct extrapolation, 23 for NTK-aware, 0 for PI and YaRN;
#     docs/lessons.md #18, #19, #21, #23);
#   - the text table fits 80 columns; --json prints one object that parses, with the documented keys;
#   - every config in tests/data/configs/ is accepted and gives JSON;
#   - usage errors, unreadable files and rejected configs (the hostile seeds of the fuzz corpus)
#     exit with status 2, one line on stderr and nothing on stdout;
#   - output that cannot be written (a full device, an SVG target that is a folder) exits 3 with
#     one line on stderr and leaves no partial output; files that would block are refused at once.
# Used by the ctest example_inspect (tests/CMakeLists.txt).
#   cmake -DPROGRAM=<posenc-inspect> -DXMLLINT=<xmllint> -DDATA_DIR=<tests/data>
#         -DFUZZ_CORPUS=<tests/fuzz/corpus/config_reader> -DWORK_DIR=<scratch> -P run_inspect_cli.cmake
find_program(RSVG_CONVERT rsvg-convert)  # optional: the charts rendered to PNG when present
if(NOT XMLLINT)
  message(FATAL_ERROR "xmllint not found: install Debian's libxml2-utils (scripts/install-deps.sh does)")
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

# run(<out-var-prefix> args...): sets <prefix>_rc, <prefix>_out, <prefix>_err.
function(run prefix)
  execute_process(COMMAND "${PROGRAM}" ${ARGN}
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  set(${prefix}_rc "${_rc}" PARENT_SCOPE)
  set(${prefix}_out "${_out}" PARENT_SCOPE)
  set(${prefix}_err "${_err}" PARENT_SCOPE)
endfunction()

function(expect_success label)
  run(r ${ARGN})
  if(NOT r_rc EQUAL 0)
    message(SEND_ERROR "${label}: exit status ${r_rc}, stderr: ${r_err}")
  endif()
  set(out "${r_out}" PARENT_SCOPE)
endfunction()

# expect_failure(label status args...): exit status `status`, nothing on stdout, one line
# "posenc-inspect: ..." on stderr; sets `err` to that line.
function(expect_failure label status)
  run(r ${ARGN})
  string(REGEX MATCHALL "\n" _newlines "${r_err}")
  list(LENGTH _newlines _lines)
  set(err "${r_err}" PARENT_SCOPE)
  if(NOT r_rc EQUAL status)
    message(SEND_ERROR "${label}: exit status ${r_rc} (expected ${status}), stderr: ${r_err}")
  elseif(NOT r_out STREQUAL "")
    message(SEND_ERROR "${label}: wrote to stdout on a refusal: ${r_out}")
  elseif(NOT _lines EQUAL 1 OR NOT r_err MATCHES "^posenc-inspect: ")
    message(SEND_ERROR "${label}: expected one line 'posenc-inspect: ...' on stderr, got: ${r_err}")
  else()
    message(STATUS "refused as expected (${label}): ${r_err}")
  endif()
endfunction()

function(expect_refusal label)
  expect_failure("${label}" 2 ${ARGN})
  set(err "${err}" PARENT_SCOPE)
endfunction()

function(expect_max_width label text width)
  # a ';' in the text would split a line in two as a CMake list: measure it as another character
  string(REPLACE ";" ":" _text "${text}")
  string(REPLACE "\n" ";" _lines "${_text}")
  foreach(_line IN LISTS _lines)
    string(LENGTH "${_line}" _n)
    if(_n GREATER width)
      message(SEND_ERROR "${label}: line wider than ${width} columns: ${_line}")
    endif()
  endforeach()
endfunction()

# ---- help and presets
expect_success("--help" --help)
if(NOT out MATCHES "^usage: posenc-inspect")
  message(SEND_ERROR "--help: no usage line")
endif()
expect_max_width("--help" "${out}" 80)
expect_success("--list-presets" --list-presets)
foreach(_preset qwen3-8b qwen3.8-27b deepseek-v4.1-flash course-small gpt2 llama-3.1-8b deepseek-v3 phi-3-mini-128k
                gpt-oss-20b mistral-7b)
  if(NOT out MATCHES "(^|\n)${_preset} ")
    message(SEND_ERROR "--list-presets does not list ${_preset}")
  endif()
endforeach()

expect_success("--version" --version)
if(NOT out MATCHES "^posenc-inspect [0-9]+\\.[0-9]+\\.[0-9]+\n$")
  message(SEND_ERROR "--version: ${out}")
endif()

# ---- the demo's command, and the lesson's four methods at x4: SVG files and red bars
foreach(_case "yarn;0" "none;24" "linear;0" "ntk_aware;23")
  list(GET _case 0 _scaling)
  list(GET _case 1 _red)
  set(_dir "${WORK_DIR}/qwen3-8b-${_scaling}-x4")
  expect_success("${_scaling}" --preset qwen3-8b --scaling ${_scaling} --factor 4 --svg "${_dir}")
  # The plot folder's path is as long as the checkout's location makes it and cannot be wrapped;
  # measure the table with the path shortened to a placeholder.
  string(REPLACE "${_dir}" "<dir>" _text "${out}")
  expect_max_width("${_scaling} text" "${_text}" 80)
  string(FIND "${out}" "plots written to" _at)
  string(FIND "${out}" "${_dir}:" _at_dir)  # the text may wrap between the two at 80 columns
  if(_at LESS 0 OR _at_dir LESS 0)
    message(SEND_ERROR "${_scaling}: the output does not name the plot folder: ${out}")
  endif()
  foreach(_svg turns compression roformer_bound)
    set(_file "${_dir}/${_svg}.svg")
    execute_process(COMMAND "${XMLLINT}" --noout "${_file}" RESULT_VARIABLE _rc ERROR_VARIABLE _err)
    if(NOT _rc EQUAL 0)
      message(SEND_ERROR "${_file} is not well-formed XML: ${_err}")
    endif()
    if(RSVG_CONVERT)  # renders to PNG as a viewer would (Debian librsvg2-bin)
      execute_process(COMMAND "${RSVG_CONVERT}" -o "${_dir}/${_svg}.png" "${_file}" RESULT_VARIABLE _rc ERROR_VARIABLE _err)
      if(NOT _rc EQUAL 0 OR NOT EXISTS "${_dir}/${_svg}.png")
        message(SEND_ERROR "rsvg-convert cannot render ${_file}: ${_err}")
      endif()
    endif()
  endforeach()
  file(READ "${_dir}/turns.svg" _turns)
  string(REGEX MATCHALL "class=\"bar out-of-range\"" _bars "${_turns}")
  list(LENGTH _bars _count)
  if(NOT _count EQUAL _red)
    message(SEND_ERROR "${_scaling} x4: ${_count} red bars, lesson C2-5 says ${_red}")
  endif()
  message(STATUS "qwen3-8b ${_scaling} x4: 3 well-formed SVG files, ${_count} red bars")
endforeach()

# ---- JSON: one object with the documented keys
expect_success("--json" --preset qwen3-8b --scaling yarn --factor 4 --json)
string(JSON _type ERROR_VARIABLE _json_error TYPE "${out}")
if(NOT _type STREQUAL "OBJECT")
  message(FATAL_ERROR "--json: not one JSON object (${_json_error})")
endif()
foreach(_key name head_dim rotary_dim base pairing scaling original_length target_length attention_factor
             softmax_scale_multiplier pairs summary)
  string(JSON _value ERROR_VARIABLE _missing GET "${out}" ${_key})
  if(_missing)
    message(SEND_ERROR "--json: key ${_key} missing")
  endif()
endforeach()
string(JSON _n LENGTH "${out}" pairs)
string(JSON _oor GET "${out}" summary out_of_range_pairs)
string(JSON _af GET "${out}" attention_factor)
string(JSON _type GET "${out}" scaling type)
if(NOT _n EQUAL 64 OR NOT _oor EQUAL 0 OR NOT _type STREQUAL "yarn")
  message(SEND_ERROR "--json: ${_n} pairs (64), out_of_range_pairs ${_oor} (0), scaling.type ${_type} (yarn)")
endif()
# YaRN's 0.1 ln 4 + 1, at full precision in the program's own text (string(JSON) would re-print
# the number with 17 digits).
string(FIND "${out}" "\"attention_factor\": 1.138629436111989,\n" _at)
if(_at LESS 0)
  message(SEND_ERROR "--json: attention_factor is not 1.138629436111989 at full precision: ${_af}")
endif()

# ---- every real config is accepted
file(GLOB _configs "${DATA_DIR}/configs/*.json")
foreach(_config IN LISTS _configs)
  expect_success("${_config}" --config "${_config}" --json)
  string(JSON _type ERROR_VARIABLE _json_error TYPE "${out}")
  if(NOT _type STREQUAL "OBJECT")
    message(SEND_ERROR "${_config}: --json is not one object (${_json_error})")
  endif()
endforeach()

# ---- refusals: exit 2, one line on stderr, nothing on stdout (no partial JSON)
expect_refusal("no arguments")
expect_refusal("unknown preset" --preset no-such-model --json)
expect_refusal("unreadable file" --config "${WORK_DIR}/missing.json" --json)
expect_refusal("a directory" --config "${WORK_DIR}" --json)
expect_refusal("bad number" --preset qwen3-8b --scaling yarn --factor four --json)
expect_refusal("factor without scaling" --preset qwen3-8b --factor 4)
expect_refusal("refused factor" --preset qwen3-8b --scaling linear --factor 0.5 --json)
expect_refusal("learned table" --preset gpt2 --svg "${WORK_DIR}/gpt2")
file(WRITE "${WORK_DIR}/a-file" "")
expect_failure("unwritable plot folder" 3 --preset qwen3-8b --svg "${WORK_DIR}/a-file/plots" --json)
file(GLOB _hostile "${FUZZ_CORPUS}/hostile-*.json")
list(LENGTH _hostile _n)
if(_n EQUAL 0)
  message(SEND_ERROR "no hostile configs found in ${FUZZ_CORPUS}")
endif()
foreach(_config IN LISTS _hostile)
  expect_refusal("${_config}" --config "${_config}" --json)
endforeach()

# ---- honesty: write errors, blocking files, NUL bytes, partial output, control characters
if(EXISTS /dev/full)
  foreach(_args "--preset;qwen3-8b" "--preset;qwen3-8b;--json" "--preset;qwen3-8b;--csv" "--list-presets" "--help"
                "--version")
    execute_process(COMMAND "${PROGRAM}" ${_args} OUTPUT_FILE /dev/full RESULT_VARIABLE _rc ERROR_VARIABLE _err)
    if(NOT _rc EQUAL 3 OR NOT _err MATCHES "^posenc-inspect: stdout: cannot be written [^\n]*\n$")
      message(SEND_ERROR "${_args} > /dev/full: exit status ${_rc} (expected 3), stderr: ${_err}")
    endif()
  endforeach()
  execute_process(COMMAND "${PROGRAM}" --preset qwen3-8b --svg "${WORK_DIR}/full-plots" OUTPUT_FILE /dev/full
    RESULT_VARIABLE _rc ERROR_QUIET)
  if(NOT _rc EQUAL 3 OR EXISTS "${WORK_DIR}/full-plots")
    message(SEND_ERROR "--svg with stdout on /dev/full: exit ${_rc}, and the plot folder must not be left behind")
  endif()
endif()
find_program(_mkfifo mkfifo)
if(_mkfifo)
  execute_process(COMMAND "${_mkfifo}" "${WORK_DIR}/fifo.json")
  execute_process(COMMAND "${PROGRAM}" --config "${WORK_DIR}/fifo.json" TIMEOUT 20
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 2 OR NOT _err MATCHES "FIFO")
    message(SEND_ERROR "--config on a FIFO without a writer: status ${_rc} (expected 2 at once), stderr: ${_err}")
  endif()
endif()
if(EXISTS /dev/zero)
  expect_refusal("character device" --config /dev/zero)
endif()
execute_process(COMMAND /usr/bin/printf "{\"hidden_size\": 4096, \"num_attention_heads\": 32, \"max_position_embeddings\": 4096}\\000 garbage"
  OUTPUT_FILE "${WORK_DIR}/nul.json")
expect_refusal("NUL byte and garbage after valid JSON" --config "${WORK_DIR}/nul.json" --json)
if(NOT err MATCHES "NUL byte at offset 81")
  message(SEND_ERROR "NUL byte: ${err}")
endif()

file(MAKE_DIRECTORY "${WORK_DIR}/partial/compression.svg")
expect_failure("SVG target is a folder" 3 --preset qwen3-8b --svg "${WORK_DIR}/partial")
file(GLOB _left "${WORK_DIR}/partial/*.svg" "${WORK_DIR}/partial/.*")
if(NOT _left STREQUAL "${WORK_DIR}/partial/compression.svg")
  message(SEND_ERROR "SVG target is a folder: partial output left behind: ${_left}")
endif()

string(ASCII 27 _esc)
string(ASCII 7 _bel)
string(ASCII 13 _cr)
file(WRITE "${WORK_DIR}/escape.json"
  "{\"_name_or_path\": \"evil\\u001b[31mRED\\u0007\\r\\nX\", \"hidden_size\": 4096, \"num_attention_heads\": 32, \"max_position_embeddings\": 4096}")
expect_success("control characters in _name_or_path" --config "${WORK_DIR}/escape.json")
if(out MATCHES "[${_esc}${_bel}${_cr}]" OR NOT out MATCHES "^evil\\\\x1b\\[31mRED\\\\x07\\\\x0d\\\\x0aX\n")
  message(SEND_ERROR "control characters reach the terminal raw: ${out}")
endif()
string(REPEAT "very-long-model-name/" 12 _long)
file(WRITE "${WORK_DIR}/long.json"
  "{\"_name_or_path\": \"${_long}\", \"hidden_size\": 4096, \"num_attention_heads\": 32, \"max_position_embeddings\": 4096}")
expect_success("long name" --config "${WORK_DIR}/long.json")
expect_max_width("long name" "${out}" 80)

# ---- messages name real options and show values as written
expect_refusal("--config --help" --config --help)
expect_refusal("--preset=" --preset=)
if(NOT err MATCHES "^posenc-inspect: --preset: expected a preset name")
  message(SEND_ERROR "--preset=: ${err}")
endif()
expect_refusal("tiny factor" --preset qwen3-8b --scaling yarn --factor 1e-320)
if(NOT err MATCHES "too small")
  message(SEND_ERROR "--factor 1e-320: ${err}")
endif()
expect_refusal("dynamic 1e17" --preset qwen3-8b --scaling dynamic --factor 1e17 --length 100)
if(err MATCHES "--inv-freq" OR NOT err MATCHES "^posenc-inspect: --")
  message(SEND_ERROR "--scaling dynamic --factor 1e17: the message must name real options: ${err}")
endif()
foreach(_bad "0x4" "0x1p2" " 4" "\t4" "4 ")
  expect_refusal("--factor '${_bad}'" --preset qwen3-8b --scaling yarn --factor "${_bad}")
endforeach()
expect_refusal("preset suggestion" --preset qwen3_8b)
if(NOT err MATCHES "did you mean qwen3-8b")
  message(SEND_ERROR "--preset qwen3_8b: ${err}")
endif()

# ---- CSV, --compare, whole models
expect_success("--csv" --preset qwen3-8b --csv)
string(REGEX MATCHALL "\n" _rows "${out}")
list(LENGTH _rows _n)
if(NOT _n EQUAL 65)
  message(SEND_ERROR "--csv: ${_n} lines (a header and 64 rows expected)")
endif()
set(_dir "${WORK_DIR}/compare")
expect_success("--compare" --preset qwen3-8b --compare none,linear,ntk_aware,yarn --factor 4 --svg "${_dir}")
expect_max_width("--compare" "${out}" 80)
execute_process(COMMAND "${XMLLINT}" --noout "${_dir}/compare.svg" RESULT_VARIABLE _rc ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0)
  message(SEND_ERROR "compare.svg is not well-formed XML: ${_err}")
endif()
expect_success("Gemma 3 groups" --config "${DATA_DIR}/configs/gemma-3-4b-it.json" --json)
string(JSON _groups LENGTH "${out}" rope_groups)
string(JSON _layers GET "${out}" num_layers)
string(JSON _base GET "${out}" base)
if(NOT _groups EQUAL 2 OR NOT _layers EQUAL 34 OR NOT _base EQUAL 1000000)
  message(SEND_ERROR "gemma-3-4b-it: ${_groups} groups (2), ${_layers} layers (34), base ${_base} (full_attention's 1e6)")
endif()
expect_success("SmolLM3 NoPE layers" --config "${DATA_DIR}/configs/smollm3-3b.json" --json)
string(JSON _nope LENGTH "${out}" nope_layers)
if(NOT _nope EQUAL 9)
  message(SEND_ERROR "smollm3-3b: ${_nope} NoPE layers (every 4th of 36: 9)")
endif()
expect_refusal("--layer on a NoPE layer" --config "${DATA_DIR}/configs/smollm3-3b.json" --layer 3)
expect_success("Qwen2.5-VL M-RoPE" --config "${DATA_DIR}/configs/qwen2.5-vl-7b-instruct.json")
if(NOT out MATCHES "temporal pairs 0-15; height pairs 16-39;" OR NOT out MATCHES "width pairs 40-63")
  message(SEND_ERROR "qwen2.5-vl: the axis of each pair is not shown: ${out}")
endif()

# ---- hostile input: failed writes leave nothing behind, charts stay well-formed XML
# A failed --svg write removes every folder of the path this run created, not only the last one.
if(EXISTS /dev/full)
  execute_process(COMMAND "${PROGRAM}" --preset qwen3-8b --svg "${WORK_DIR}/nested-new/a/b" OUTPUT_FILE /dev/full
    RESULT_VARIABLE _rc ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 3 OR EXISTS "${WORK_DIR}/nested-new")
    message(SEND_ERROR "--svg a/b/c with stdout on /dev/full: exit ${_rc} (3), and no folder of the path may be left: ${_err}")
  endif()
endif()
# An SVG file that cannot be written (here: past the file-size limit, SIGXFSZ ignored so that the
# write fails with EFBIG) is exit 3 with the reason, and leaves no temporary file and no folder.
find_program(_bash bash)
if(_bash)
  foreach(_blocks 1 11)
    set(_dir "${WORK_DIR}/fsize-${_blocks}/plots")
    execute_process(COMMAND "${_bash}" -c "trap '' XFSZ; ulimit -f ${_blocks} && exec \"$0\" --preset qwen3-8b --svg \"$1\""
      "${PROGRAM}" "${_dir}" RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
    if(_rc EQUAL 0)
      if(_blocks EQUAL 1)
        message(SEND_ERROR "--svg past a 1 KiB file-size limit: exit 0")
      endif()
    elseif(NOT _rc EQUAL 3 OR NOT _err MATCHES "^posenc-inspect: --svg \"[^\n]*\": [a-z_]+\\.svg cannot be written \\([^)]+\\); nothing written\n$"
           OR NOT _out STREQUAL "" OR EXISTS "${WORK_DIR}/fsize-${_blocks}")
      message(SEND_ERROR "--svg past a ${_blocks} KiB file-size limit: exit ${_rc} (3), stdout '${_out}', stderr: ${_err}; "
                         "the folder must not be left behind")
    endif()
  endforeach()
endif()
# U+FFFE and U+FFFF are valid UTF-8 but not XML 1.0 characters: the charts show them as '?'.
file(WRITE "${WORK_DIR}/nonchar.json"
  "{\"_name_or_path\": \"a\\uFFFEb\\uFFFF<&>\", \"model_type\": \"llama\", \"head_dim\": 64, \"max_position_embeddings\": 4096}")
expect_success("U+FFFE in _name_or_path" --config "${WORK_DIR}/nonchar.json" --svg "${WORK_DIR}/nonchar")
foreach(_svg turns compression roformer_bound)
  execute_process(COMMAND "${XMLLINT}" --noout "${WORK_DIR}/nonchar/${_svg}.svg" RESULT_VARIABLE _rc ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(SEND_ERROR "${_svg}.svg with U+FFFE in the name is not well-formed XML: ${_err}")
  endif()
endforeach()
expect_refusal("--compare with a factor below 1" --preset qwen3-8b --compare none,linear --factor 1e-300)
if(NOT err STREQUAL "posenc-inspect: --factor: must be >= 1, got \"1e-300\"\n")
  message(SEND_ERROR "--compare none,linear --factor 1e-300: ${err}")
endif()
