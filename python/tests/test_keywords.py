# SPDX-License-Identifier: MIT
"""A call no native overload takes raises one line naming the keyword and the nearest one (as the
CLI does); an unknown model_type names the Python keyword assume_half_split and a did-you-mean."""
import pytest

import posenc

LLAMA = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 10000.0,
         "max_position_embeddings": 4096}


def message(call):
    with pytest.raises(TypeError) as info:
        call()
    text = str(info.value)
    assert "\n" not in text
    return text


def test_misspelt_keyword_of_a_function():
    qwen = posenc.presets.qwen3_8b()
    assert message(lambda: posenc.frequency_table(qwen, sequence_lenght=4096)) == (
        "frequency_table() got an unexpected keyword 'sequence_lenght'; did you mean 'sequence_length'?")
    # frequency_table has no head_dim: the names it takes, not a wrong suggestion
    assert message(lambda: posenc.frequency_table(head_dimm=64)) == (
        "frequency_table() got an unexpected keyword 'head_dimm'; it takes spec, scaling, sequence_length, "
        "precision, preset, model, group")


def test_misspelt_keyword_of_a_constructor_method_and_static_method():
    assert message(lambda: posenc.RopeSpec(128, 128, 1e4, pairng="interleaved")) == (
        "RopeSpec() got an unexpected keyword 'pairng'; did you mean 'pairing'?")
    table = posenc.FrequencyTable.from_spec(posenc.RopeSpec.full(8, 1e4))
    assert message(lambda: table.turns(0, lengh=10.0)) == (
        "FrequencyTable.turns() got an unexpected keyword 'lengh'; did you mean 'length'?")
    assert message(lambda: posenc.RopeSpec.full(head_dimm=64, base=1e4)) == (
        "RopeSpec.full() got an unexpected keyword 'head_dimm'; did you mean 'head_dim'?")


def test_keyword_far_from_every_name_lists_the_names():
    assert message(lambda: posenc.period_of(frequency=1.0)) == (
        "period_of() got an unexpected keyword 'frequency'; it takes inv_freq")


def test_misspelt_keyword_of_a_python_defined_function():
    np = pytest.importorskip("numpy")
    spec = posenc.RopeSpec.full(8, 1e4)
    q = np.zeros((2, 1, 8), np.float32)
    assert message(lambda: posenc.apply_rope(spec, posenc.FrequencyTable.from_spec(spec), q, layot="thd")) == (
        "apply_rope() got an unexpected keyword 'layot'; did you mean 'layout'?")
    assert message(lambda: posenc.from_hf_config(LLAMA, assume_half_splt=True)) == (
        "from_hf_config() got an unexpected keyword 'assume_half_splt'; did you mean 'assume_half_split'?")


def test_wrong_types_are_one_line_with_the_signatures():
    text = message(lambda: posenc.RopeSpec("128", 128, 1e4))
    assert text.startswith("RopeSpec() got (str, int, float); it takes (head_dim: int, rotary_dim: int, base: float")


def test_the_message_is_shorter_than_pybind11s_overload_list():
    native = posenc.frequency_table._posenc_native
    qwen = posenc.presets.qwen3_8b()
    with pytest.raises(TypeError) as info:
        native(qwen, sequence_lenght=4096)
    assert "incompatible function arguments" in str(info.value) and len(str(info.value)) > 1000
    assert len(message(lambda: posenc.frequency_table(qwen, sequence_lenght=4096))) < 100


def test_wrapped_functions_keep_their_results_and_docs():
    assert posenc.frequency_table(posenc.presets.qwen3_8b()).count_without_full_turn(32768) == 24
    assert posenc.frequency_table.__doc__.startswith("frequency_table(")
    assert posenc.RopeSpec(128, 64, 1e4).rotary_dim == 64
    assert posenc.Error is posenc._posenc.Error


def test_unknown_model_type_names_the_python_keyword_and_the_nearest_type():
    with pytest.raises(posenc.Error) as info:
        posenc.from_hf_config(dict(LLAMA, model_type="lama"))
    text = str(info.value)
    assert "\n" not in text
    assert "pass assume_half_split=True" in text
    assert "ReadOptions" not in text and "--assume-half-split" not in text
    assert text.endswith("got \"lama\" (did you mean llama?)")
    assert info.value.field == "model_type" and info.value.value == '"lama"'
    with pytest.raises(posenc.Error, match=r"did you mean llama\?\)$"):
        posenc.model_from_hf_config(dict(LLAMA, model_type="lama"))


def test_unknown_model_type_far_from_every_known_one_has_no_suggestion():
    with pytest.raises(posenc.Error) as info:
        posenc.from_hf_config(dict(LLAMA, model_type="zzzzzzzzzzzz"))
    assert str(info.value).endswith('got "zzzzzzzzzzzz"') and "pass assume_half_split=True" in str(info.value)


def test_nearest_name_is_the_cli_rule():
    assert posenc._posenc._nearest_name("head_dimm", ["head_dim", "base"]) == "head_dim"
    assert posenc._posenc._nearest_name("Head-Dim", ["head_dim"]) == "head_dim"  # case and '-' free
    assert posenc._posenc._nearest_name("xyz", ["head_dim"]) is None
