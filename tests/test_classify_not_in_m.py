"""A rank of A undecided between a and more than a: "not in M" is one of the outcomes.

For (A, V) and ambient input, rk A ≤ a is what makes the input a point of M_{d,d',a}; a rank
candidate above a is therefore an outcome of its own ("not in M"), so labels read from the
candidates ≤ a alone would be a silent wrong answer. The points are exact (decimal strings and
Fractions), so their true ranks are known: diag(1, 1e-45) has rank 2.

Tolerances at 50 digits: 1e-40, min margin 1e5, so 1e-45 lies on the edge of the undecided band
(margin 1e5, not cleared); at 100 digits (tolerance 1e-80, min margin 1e10) it is decided rank 2.
"""
import json
from fractions import Fraction as F

import numpy as np
import pytest

from numag.classify import RankOptions, classify_av, classify_tensor
from numag.cli import main
from numag.tensor import tensor

TINY = {"widths": [2, 1], "ranks": [1], "A": [[1, 0], [0, "1e-45"]], "V": [[1, 0]]}
E45 = F(1, 10 ** 45)


def write(tmp_path, name, obj):
    p = tmp_path / name
    p.write_text(json.dumps(obj))
    return str(p)


def fr(rows):
    return np.array([[F(x) for x in r] for r in rows], dtype=object)


def tensor_json(A, V, a):
    T = tensor(fr(A), fr(V))
    return {"widths": [len(A), len(V)], "ranks": [a],
            "tensor": [[[[str(x) for x in r3] for r3 in r2] for r2 in r1] for r1 in T.tolist()]}


# --- the reported input ---------------------------------------------------------------------------

def test_tiny_input_at_50_digits_is_undecided_with_not_in_M(tmp_path, capsys):
    path = write(tmp_path, "tiny1.json", TINY)
    assert main(["classify", path]) == 0                       # with the evidence, as reported
    out = capsys.readouterr().out
    labels = next(x for x in out.splitlines() if x.strip().startswith("labels"))
    assert "undecided" in labels and "smooth" not in labels and "boundary" not in labels
    assert "not in M" in out and "a rank above a = 1" in out and "--digits" in out
    assert "the labels are the same for every candidate" not in out
    assert "rule undecided" in out                              # no agreement claimed

    assert main(["classify", path, "--json"]) == 0
    j = json.loads(capsys.readouterr().out)
    assert j["labels"] == ["undecided"]
    assert sorted(j["alternatives"]) == [["not in M"], ["smooth", "boundary"]]
    rank_A = j["decisions"][0]
    assert rank_A["quantity"] == "rank A" and rank_A["candidates"] == [1, 2]
    # the margin is that of the undecided rank (1e5, not above the min margin), not the 1.41e5
    # of the decided u ∥ w test that used to be reported
    assert j["margin"] == pytest.approx(1e5) and j["margin"] <= j["precision"]["min_margin"]


def test_tiny_input_at_100_digits_is_rank_2_not_a_point_of_M(tmp_path, capsys):
    path = write(tmp_path, "tiny1.json", TINY)
    assert main(["classify", path, "--digits", "100"]) == 2
    err = capsys.readouterr().err
    assert "A has rank 2 > a = 1" in err and "not a point of M_{2,1,1}" in err
    # the same answer as 1e-20 at the default 50 digits
    assert main(["classify", write(tmp_path, "t20.json", {**TINY, "A": [[1, 0], [0, "1e-20"]]})]) == 2
    err20 = capsys.readouterr().err
    assert "A has rank 2 > a = 1" in err20 and "not a point of M_{2,1,1}" in err20


def test_library_result_for_the_tiny_input():
    A, V = fr([[1, 0], [0, E45]]), fr([[1, 0]])
    r = classify_av(A, V, 1, evidence=False)
    assert r.labels == ("undecided",) and ("not in M",) in r.alternatives
    assert any("not a point of M_{2,1,1}" in n for n in r.notes)
    with pytest.raises(ValueError, match="rank 2 > a = 1"):
        classify_av(A, V, 1, RankOptions(100), evidence=False)
    # with a = 2 the same matrices are a point of M: undecided between two label sets of M
    r2 = classify_av(A, V, 2, evidence=False)
    assert r2.labels == ("undecided",) and ("not in M",) not in r2.alternatives


# --- candidates that agree keep their labels ---------------------------------------------------------

def test_candidates_with_the_same_labels_keep_definite_labels():
    """(2,2,2): rk A in {1, 2} ≤ a, rk V = 2: smooth either way; the note stays true."""
    r = classify_av(fr([[1, 0], [0, E45]]), fr([[1, 0], [0, 1]]), 2, evidence=False)
    assert r.labels == ("smooth",) and not r.alternatives
    assert r.decisions[0].candidates == (1, 2)
    assert any("rank A undecided ([1, 2]) but the labels are the same" in n for n in r.notes)
    assert r.margin >= r.precision.min_margin            # the undecided rank is left out


def test_undecided_rank_V_with_the_same_labels():
    """(3,3,2): rk A = 1 < a = 2 < d is singular whatever rk V in {2, 3} is."""
    A = fr([[1, 0, 0], [0, 0, 0], [0, 0, 0]])
    V = fr([[1, 0, 0], [0, 1, 0], [0, 0, E45]])
    r = classify_av(A, V, 2, evidence=False)
    assert r.labels == ("singular",) and r.decisions[1].candidates == (2, 3)
    assert any("rank V undecided ([2, 3]) but the labels are the same" in n for n in r.notes)


def test_undecided_rank_V_that_changes_the_labels():
    """(3,2,1), A = u vᵀ, V = c wᵀ + 1e-45·(…), u ∦ w: rk V 1 (self-intersection) or 2 (smooth).
    V has no rank bound in M, so "not in M" is no outcome here."""
    A = fr([[1, 0, 0], [0, 0, 0], [0, 0, 0]])
    V = fr([[0, 1, 0], [0, 0, E45]])
    r = classify_av(A, V, 1, evidence=False)
    assert r.labels == ("undecided",)
    assert set(r.alternatives) == {("singular",), ("smooth",)}
    assert r.decisions[1].candidates == (1, 2)


# --- every candidate above a, and V = 0 --------------------------------------------------------------

def test_every_candidate_above_a_is_an_error_not_a_label(tmp_path, capsys):
    """diag(1, 1, 1e-45), a = 1: rank 2 or 3 (undecided), > a either way. It used to be
    classified "smooth" from the rank a = 1 that no candidate has."""
    obj = {"widths": [3, 1], "ranks": [1], "A": [[1, 0, 0], [0, 1, 0], [0, 0, "1e-45"]],
           "V": [[1, 2, 3]]}
    assert main(["classify", write(tmp_path, "c.json", obj), "--no-evidence"]) == 2
    err = capsys.readouterr().err
    assert "undecided among [2, 3], all above a" in err and "not a point of M_{3,1,1}" in err


def test_V_zero_is_the_zero_point_whatever_rank_A():
    """T(A, 0) = 0 = T(0, V') lies in M even when rk A > a."""
    r = classify_av(np.eye(3, dtype=int), np.zeros((1, 3), dtype=int), 1, evidence=False)
    assert r.labels == ("zero", "singular", "boundary")


# --- float64, ambient, batch ---------------------------------------------------------------------

def test_float64_cannot_certify_rank_at_most_a():
    """In float64 the input is known only to rounding: an exact rank-1 A with a = 1 < d = 2 may
    be the rounding of a rank-2 matrix, so "not in M" stays possible."""
    r = classify_av(np.array([[1.0, 0], [0, 0]]), np.array([[1.0, 2.0]]), 1, RankOptions(None),
                    evidence=False)
    assert r.labels == ("undecided",) and ("not in M",) in r.alternatives


def test_ambient_tensor_with_undecided_rank_A():
    """T = T(diag(1, 1e-45), (1 2)): the recovered preimage fits, its rank is undecided between
    1 = a and 2: membership and labels are undecided; at 100 digits it is not in M."""
    T = tensor(fr([[1, 0], [0, E45]]), fr([[1, 2]]))
    r = classify_tensor(T, 1, evidence=False)
    assert r.labels == ("undecided",) and ("not in M",) in r.alternatives
    assert r.membership.in_M is None and "rk A is undecided among [1, 2]" in r.membership.reason
    assert r.decisions[0].quantity == "rank A of the recovered preimage"
    r100 = classify_tensor(T, 1, RankOptions(100), evidence=False)
    assert r100.labels == () and r100.membership.in_M is False
    assert "rk A = 2 > a = 1" in r100.membership.reason
    # an exactly rank-1 A is in M with definite labels
    r1 = classify_tensor(tensor(fr([[1, 3], [2, 6]]), fr([[1, 2], [3, -1]])), 1, evidence=False)
    assert r1.labels == ("smooth",) and r1.membership.in_M is True


def test_ambient_undecided_json(tmp_path, capsys):
    obj = tensor_json([[1, 0], [0, E45]], [[1, 2]], 1)
    assert main(["classify", write(tmp_path, "t.json", obj), "--json", "--no-evidence"]) == 0
    j = json.loads(capsys.readouterr().out)
    assert j["labels"] == ["undecided"] and ["not in M"] in j["alternatives"]
    assert j["membership"]["in_M"] is None
    assert j["membership"]["rank_A"]["candidates"] == [1, 2]
    assert j["margin"] == pytest.approx(1e5)


def test_batch_gives_a_per_line_undecided_result(tmp_path, capsys):
    same = {"widths": [2, 2], "ranks": [2], "A": [[1, 0], [0, "1e-45"]], "V": [[1, 0], [0, 1]]}
    p = tmp_path / "pts.jsonl"
    p.write_text("\n".join(json.dumps(x) for x in
                           (TINY, same, tensor_json([[1, 0], [0, E45]], [[1, 2]], 1))) + "\n")
    assert main(["classify", str(p), "--no-evidence"]) == 0
    out = capsys.readouterr().out
    rows = [x for x in out.splitlines() if "jsonl:" in x]
    assert "undecided" in rows[0] and "smooth" not in rows[0]
    assert "smooth" in rows[1] and "undecided" in rows[2]
    assert "3 point(s) at 50 digits: smooth: 1; undecided: 2" in out
    assert main(["classify", str(p), "--no-evidence", "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["labels"] for x in lines] == [["undecided"], ["smooth"], ["undecided"]]
    assert ["not in M"] in lines[0]["alternatives"] and ["not in M"] in lines[2]["alternatives"]
    # with a line whose rank is decided above a: that line is an error, the others stay
    p.write_text(json.dumps(TINY) + "\n" + json.dumps({**TINY, "A": [[1, 0], [0, "1e-20"]]}) + "\n")
    assert main(["classify", str(p), "--no-evidence"]) == 2
    out = capsys.readouterr().out
    assert "jsonl:2" in out and "ERROR: A has rank 2 > a = 1" in out and "undecided: 1" in out


def test_float_weights_give_the_exact_product():
    """Weights as float64 arrays: A = KᵀQ is formed from the exact values of the floats. The
    rows of Q (and of K) are exactly proportional (doubling is exact in binary), so rk A = 1 < a
    = 2 < d: singular. The rounded float64 product has rank 3 at 50 digits, which used to be
    cut back to a = 2 and read as smooth."""
    from numag.classify import classify_weights
    Q = np.array([[0.1, 1 / 3, 0.7], [0.2, 2 / 3, 1.4]])
    K = np.array([[0.3, 1 / 7, 0.9], [0.6, 2 / 7, 1.8]])
    V = np.array([[1.0, 2, 3], [0, 1, 5], [2, 0, 1]])
    assert classify_av(K.T @ Q, V, 3, evidence=False).ranks["A"] == 3    # the rounded product
    r = classify_weights(Q, K, V, evidence=False)
    assert r.labels == ("singular",) and r.ranks == {"A": 1, "V": 3}
    assert all(x.decided for x in r.decisions)
