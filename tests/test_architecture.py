"""Architecture: sizes, packing, parsing and clear errors for invalid specs."""
import numpy as np
import pytest

from numag import Architecture


def test_param_count_matches_layer_shapes():
    arch = Architecture((3, 2, 4), (2, 1))
    # layer 1: Q,K 2x3, V 2x3 -> 18; layer 2: Q,K 1x2, V 4x2 -> 12  (paper-notes §1 formula)
    assert arch.n_params == 2 * 2 * 3 + 2 * 3 + 2 * 1 * 2 + 4 * 2 == 30
    assert arch.depth == 2 and not arch.is_single_layer


def test_pack_unpack_roundtrip_keeps_layout():
    arch = Architecture((3, 2, 4), (2, 1))
    v = np.arange(arch.n_params)
    layers = arch.unpack(v)
    assert layers[0].Q.shape == (2, 3) and layers[1].V.shape == (4, 2)
    assert layers[0].K[0, 0] == 6          # Q block (6 entries) comes first
    assert np.array_equal(arch.pack(layers), v)


def test_single_layer_is_depth_one():
    arch = Architecture.single(4, 3, 2)
    assert arch.widths == (4, 3) and arch.ranks == (2,) and arch.is_single_layer


def test_parse_spec():
    arch = Architecture.parse("3,2,3:2,2", tokens=3)
    assert arch.widths == (3, 2, 3) and arch.ranks == (2, 2) and arch.tokens == 3


@pytest.mark.parametrize("kwargs, message", [
    (dict(widths=(3, 0), ranks=(1,)), "positive"),
    (dict(widths=(3, -2), ranks=(1,)), "positive"),
    (dict(widths=(3, 2), ranks=(1, 1)), "ranks"),
    (dict(widths=(3,), ranks=()), "at least"),
    (dict(widths=(3, 2.5), ranks=(1,)), "integers"),
    (dict(widths=(3, 2), ranks=(1,), tokens=0), "tokens"),
    (dict(widths=(3, 2), ranks=(True,)), "integers"),
    (dict(widths=(3, 2), ranks=(1,), kind="relu"), "kind"),
])
def test_invalid_specs_raise_clear_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Architecture(**kwargs)


@pytest.mark.parametrize("spec", ["3,2", "3,2:1:1", "3,x:1", 5])
def test_malformed_spec_strings(spec):
    with pytest.raises(ValueError):
        Architecture.parse(spec)


def test_one_token_is_allowed_but_flagged():
    assert Architecture((3, 3), (1,), tokens=1).degenerate
    assert not Architecture((3, 3), (1,), tokens=2).degenerate


def test_pack_rejects_wrong_shapes():
    arch = Architecture((3, 2), (1,))
    with pytest.raises(ValueError, match="layer 1: K"):
        arch.pack([(np.zeros((1, 3)), np.zeros((2, 3)), np.zeros((2, 3)))])
    with pytest.raises(ValueError, match="shape"):
        arch.unpack(np.zeros(5))
