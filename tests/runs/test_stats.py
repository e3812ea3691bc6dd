"""The match statistics against values worked by hand and published examples."""

import math
import sys

import pytest

from photocore import stats
from photocore.stats import SPRT, bradley_terry, estimate, llr


def test_elo_of_a_score_and_back():
    # 0.75 = 3 points for every 1 lost: 400 log10(3)
    assert stats.elo(0.75) == pytest.approx(190.85, abs=0.01)
    assert stats.elo(0.5) == 0
    assert stats.elo(0.25) == pytest.approx(-190.85, abs=0.01)
    assert stats.elo(1.0) == math.inf and stats.elo(0.0) == -math.inf
    assert stats.expected_score(190.85) == pytest.approx(0.75, abs=1e-5)


def test_estimate_of_single_games_by_hand():
    # 60 wins, 40 losses: s = 0.6, var = 0.24, se = sqrt(0.24 / 100) = 0.04899;
    # 95%: 0.6 -+ 1.96 se = 0.50398 .. 0.69602 = +2.77 .. +143.91 Elo; LOS = Phi(0.1 / se)
    e = estimate({1.0: 60, 0.0: 40})
    assert e.n == 100 and e.score == pytest.approx(0.6)
    assert e.elo == pytest.approx(70.44, abs=0.01)
    assert e.low == pytest.approx(2.77, abs=0.01)
    assert e.high == pytest.approx(143.91, abs=0.01)
    assert e.los == pytest.approx(0.97939, abs=1e-5)


def test_estimate_of_paired_games_by_hand():
    # ten openings, each the mean of its two games: 2 x 1, 5 x 3/4, 2 x 1/2, 1 x 1/4
    # mean 0.7, var = (2 .3^2 + 5 .05^2 + 2 .2^2 + .45^2) / 10 = 0.0475, se = 0.068920
    e = estimate({1.0: 2, 0.75: 5, 0.5: 2, 0.25: 1})
    assert e.score == pytest.approx(0.7)
    assert e.elo == pytest.approx(147.19, abs=0.01)        # 400 log10(7 / 3)
    assert e.los == pytest.approx(0.99815, abs=1e-5)       # Phi(0.2 / 0.068920)


@pytest.mark.parametrize("wins,losses,draws,elo,error", [
    (0, 36, 14, -315.34, 95.43), (859, 772, 1329, 10.21, 9.28), (1164, 1267, 3049, -6.53, 6.12)])
def test_estimate_agrees_with_fastchess(wins, losses, draws, elo, error):
    # fastchess (github.com/Disservin/fastchess) tests/elo_test.cpp, to its 1% tolerance
    e = estimate({1.0: wins, 0.0: losses, 0.5: draws})
    assert e.elo == pytest.approx(elo, rel=0.01)
    assert e.error == pytest.approx(error, rel=0.01)


def test_estimate_of_nothing_and_of_a_sweep():
    assert estimate({}).n == 0 and math.isnan(estimate({}).score)
    sweep = estimate({1.0: 5})
    assert sweep.elo == math.inf and sweep.los == 1.0


@pytest.mark.parametrize("n", [1, 10, 50, 1000])
def test_a_sweep_has_a_one_sided_bound(n):
    # n scores of 0: the mean score p is below 1 - 0.05 ** (1 / n) at 95% (whatever the
    # scores' distribution in 0..1, all n are 0 with probability at most (1 - p) ** n);
    # n scores of 1 mirror it
    bound = 1 - 0.05 ** (1 / n)
    lost, won = estimate({0.0: n}), estimate({1.0: n})
    assert lost.elo == lost.low == -math.inf and won.elo == won.high == math.inf
    assert lost.high == pytest.approx(stats.elo(bound)) == -won.low
    assert math.isfinite(lost.high) and (lost.high < 0) == (n >= 5)   # 0.05 ** (1/5) > 1/2
    assert (1 - bound) ** n == pytest.approx(0.05)
    assert estimate({0.0: n}, confidence=0.99).high > lost.high


# The logistic-Elo GSPRT examples of fastchess's tests/sprt_test.cpp (the numbers fishtest's
# LLR_logistic gives): trinomial (wins, losses, draws) and pentanomial (LL, LD, WL, DD, WD, WW).
@pytest.mark.parametrize("counts,elo0,elo1,expected", [
    ({1.0: 21404, 0.0: 21184, 0.5: 40708}, 0.5, 2.5, -1.57),
    ({1.0: 57433, 0.0: 57030, 0.5: 106593}, 0.0, 2.0, -2.59),
    ({0.0: 223, 0.25: 9863, 0.5: 20279 + 1000, 0.75: 10037, 1.0: 246}, 0.5, 2.5, -3.07),
    ({0.0: 871, 0.25: 26175, 0.5: 55003 + 980, 0.75: 26678, 1.0: 821}, 0.0, 2.0, -4.98),
])
def test_llr_agrees_with_the_published_examples(counts, elo0, elo1, expected):
    assert llr(counts, elo0, elo1) == pytest.approx(expected, abs=0.005)


def test_llr_grows_with_evidence_for_the_stronger_hypothesis():
    assert llr({1.0: 3, 0.0: 1}, 0, 50) > 0
    assert llr({1.0: 30, 0.0: 10}, 0, 50) > llr({1.0: 3, 0.0: 1}, 0, 50)
    assert llr({0.5: 100}, 0, 50) < 0
    assert llr({}, 0, 10) == pytest.approx(0, abs=1e-6)


def test_sprt_bounds_decisions_and_parsing():
    test = SPRT.parse("elo0=0, elo1=50, alpha=0.05, beta=0.1")
    assert test.lower == pytest.approx(math.log(0.1 / 0.95))
    assert test.upper == pytest.approx(math.log(0.9 / 0.05))
    assert test.decision(test.upper) == "H1" and test.decision(test.lower) == "H0"
    assert test.decision(0.0) is None
    assert str(test) == "SPRT elo0=0 elo1=50 alpha=0.05 beta=0.1"
    for bad, reason in [("elo0=5,elo1=0", "less than"), ("elo1=5", "elo0 is missing"),
                        ("elo0=0,elo1=5,gamma=1", "expected"), ("elo0=x,elo1=5", "number"),
                        ("elo0=0,elo1=5,alpha=0.7", "alpha")]:
        with pytest.raises(ValueError, match=reason):
            SPRT.parse(bad)


def test_bradley_terry_by_hand():
    # two agents: the maximum-likelihood difference is the Elo of the score, 3:1 = 190.85
    two = bradley_terry([[0, 3], [1, 0]], prior=0)
    assert two.elo[0] - two.elo[1] == pytest.approx(190.85, abs=0.01)
    assert two.elo[0] + two.elo[1] == pytest.approx(0, abs=1e-9)
    # consistent odds 2:1, 2:1 and 4:1 are fitted exactly: 400 log10(2) = 120.41 apart
    three = bradley_terry([[0, 2, 4], [1, 0, 2], [1, 1, 0]], prior=0)
    assert three.elo == pytest.approx([120.41, 0.0, -120.41], abs=0.01)
    # errors: 1 / information; two agents, 4 games at p = 3/4: var(r0 - r1) = 1 / (4 p q)
    assert two.error[0] == pytest.approx(stats.ELO_PER_LOGIT / math.sqrt(4 * 0.75 * 0.25) / 2,
                                         rel=1e-3)


def test_bradley_terry_anchored_moves_the_scale_and_measures_errors_from_the_anchor():
    points = [[0, 6, 9, 7], [4, 0, 6, 5], [1, 4, 0, 6], [3, 5, 4, 0]]
    centred = bradley_terry(points)
    anchored = bradley_terry(points, anchor=2)
    assert anchored.elo[2] == anchored.error[2] == 0
    # the same differences, shifted
    for k in range(4):
        assert anchored.elo[k] == pytest.approx(centred.elo[k] - centred.elo[2], abs=1e-9)
    # two agents: the error of the difference is twice each centred error (r0 = -r1)
    two = bradley_terry([[0, 3], [1, 0]], prior=0)
    assert bradley_terry([[0, 3], [1, 0]], prior=0, anchor=1).error[0] == pytest.approx(
        2 * two.error[0], rel=1e-6)
    low, high = anchored.interval(0)
    assert high - anchored.elo[0] == pytest.approx(anchored.elo[0] - low)
    assert high - low == pytest.approx(2 * 1.959964 * anchored.error[0], rel=1e-5)
    with pytest.raises(ValueError, match="anchor must be an agent's index, 0 to 3, got 4"):
        bradley_terry(points, anchor=4)


def test_bradley_terry_prior_keeps_a_sweep_finite():
    fit = bradley_terry([[0, 10, 10], [0, 0, 7], [0, 3, 0]])
    assert all(math.isfinite(x) for x in fit.elo + fit.error)
    assert fit.elo[0] > fit.elo[1] > fit.elo[2]
    # one virtual tie per pair: 10:0 counts as 10.5:0.5 against each
    assert fit.elo[0] < 1000


def test_bradley_terry_without_scipy_names_the_extra(monkeypatch):
    # scipy is the `ratings` extra: without it the fit says what to install
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.optimize", None)
    with pytest.raises(ImportError, match=r"Bradley-Terry ratings need scipy .*: "
                                          r"pip install 'photocore\[ratings\]'"):
        bradley_terry([[0, 2], [1, 0]])
    # the SPRT needs no scipy
    assert llr({1.0: 3, 0.0: 1}, 0, 50) > 0
    assert estimate({1.0: 3, 0.0: 1}).n == 4
