# SPDX-License-Identifier: MIT
# Runs the posenc-inspect binary the way a user does and checks what docs/cli.md promises:
#   - --help and --list-presets succeed; the required presets are listed;
#   - the README's command writes three SVG files that xmllint (Debian libxml2-utils) accepts as
#     well-formed XML, and the turns chart has as many red bars as lesson C2-5 says
#     (Qwen3-8B x4: 24 for direct extrapolation, 23 for NTK-aware, 0 for PI and YaRN;
#     docs/lessons.md items 18, 19, 21, 23);
#   - the text table fits 80 columns; --json prints one object that parses, with the documented keys;
#   - every config in tests/data/configs/ is accepted and gives JSON;
#   - usage errors, unreadable files and rejected configs (the hostile inputs of the fuzz corpus)
#     exit with status 2, one line on stderr and nothing on stdout.
# Used by the ctest example_inspect (tests/CMakeLists.txt).
#   cmake -DPROGRAM=<posenc-inspect> -DXMLLINT=<xmllint> -DDATA_DIR=<tests/data>
#         -DFUZZ_CORPUS=<tests/fuzz/corpus/config_reader> -DWORK_DIR=<scratch> -P run_inspect_cli.cmake
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

function(expect_refusal label)
  run(r ${ARGN})
  string(REGEX MATCHALL "\n" _newlines "${r_err}")
  list(LENGTH _newlines _lines)
  if(NOT r_rc EQUAL 2)
    message(SEND_ERROR "${label}: exit status ${r_rc} (expected 2), stderr: ${r_err}")
  elseif(NOT r_out STREQUAL "")
    message(SEND_ERROR "${label}: wrote to stdout on a refusal: ${r_out}")
  elseif(NOT _lines EQUAL 1 OR NOT r_err MATCHES "^posenc-inspect: ")
    message(SEND_ERROR "${label}: expected one line 'posenc-inspect: ...' on stderr, got: ${r_err}")
  else()
    message(STATUS "refused as expected (${label}): ${r_err}")
  endif()
endfunction()

function(expect_max_width label text width)
  string(REPLACE "\n" ";" _lines "${text}")
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

# ---- the README's command, and the lesson's four methods at x4: SVG files and red bars
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
# H12,  (docs/formulas.md)at full precision in the program's own text (string(JSON)
# would re-print the number with 17 digits).
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
expect_refusal("unwritable plot folder" --preset qwen3-8b --svg "${WORK_DIR}/a-file/plots" --json)
file(GLOB _hostile "${FUZZ_CORPUS}/hostile-*.json")
list(LENGTH _hostile _n)
if(_n EQUAL 0)
  message(SEND_ERROR "no hostile configs found in ${FUZZ_CORPUS}")
endif()
foreach(_config IN LISTS _hostile)
  expect_refusal("${_config}" --config "${_config}" --json)
endforeach()
