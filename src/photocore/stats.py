"""Strength from game results: Elo with a confidence interval, the likelihood of
superiority, the sequential probability ratio test (SPRT) and Bradley–Terry ratings.

Results are scores from one agent's side, 1 a win, 1/2 a tie, 0 a loss, counted by value:
`{1.0: 31, 0.5: 2, 0.0: 17}`. A match pairs its games (the same opening from every seat),
and the statistics take the mean score of each pair as one observation (the pentanomial
model of chess testing): paired games are correlated, and treating them as independent
would overstate the error. docs/matches.md explains the choices.

>>> round(elo(0.75), 1)
190.8
>>> e = estimate({1.0: 60, 0.0: 40})
>>> round(e.elo, 1), round(e.los, 4)
(70.4, 0.9794)
"""

import math
from collections.abc import Callable, Mapping, Sequence
from statistics import NormalDist
from typing import Literal, NamedTuple, Self, TypeAlias

import numpy as np
import numpy.typing as npt

__all__ = [
    "ELO_PER_LOGIT", "Counts", "elo", "expected_score", "Estimate", "estimate", "sweep_bound",
    "llr", "SPRT", "Ratings", "bradley_terry", "wilson"
]

ELO_PER_LOGIT = 400 / math.log(10)
"""Elo points per natural-log unit of the odds: a rating difference d gives the odds 10**(d/400)."""

Counts: TypeAlias = Mapping[float, int]
"""Results from one agent's side, counted by score: {1.0: wins, 0.5: ties, 0.0: losses}."""


def elo(score: float) -> float:
    """The Elo difference that a mean score (0..1) stands for: -400 log10(1/score - 1);
    infinite at 0 and 1."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def expected_score(difference: float) -> float:
    """The mean score of an agent `difference` Elo points stronger (the inverse of elo)."""
    return 1 / (1 + 10 ** (-difference / 400))


class Estimate(NamedTuple):
    """What results say about one agent against another."""

    n: int
    score: float
    elo: float
    low: float
    high: float
    los: float

    @property
    def error(self) -> float:
        """Half the width of the Elo interval (the `±` of a summary)."""
        return (self.high - self.low) / 2


Estimate.n.__doc__ = "Observations: games, or pairs of games."
Estimate.score.__doc__ = "The agent's mean score, 0 to 1."
Estimate.elo.__doc__ = "Its Elo difference from the other agent."
Estimate.low.__doc__ = "The low end of the Elo interval at the confidence asked for."
Estimate.high.__doc__ = "The high end of the Elo interval at the confidence asked for."
Estimate.los.__doc__ = ("The likelihood of superiority: the probability that the agent is the "
                        "stronger one.")


def estimate(counts: Counts, confidence: float = 0.95) -> Estimate:
    """The Estimate from scores counted by value ({score: count}).

    The interval is the normal one on the mean score, s ± z·sqrt(var/n) (var the
    observations' variance), mapped to Elo, so it is not symmetric in Elo. LOS is
    Phi((s - 1/2) / sqrt(var/n)); for unpaired games that is the familiar
    Phi((W - L) / sqrt(W + L)) when the variance is taken at s = 1/2.

    >>> e = estimate({1.0: 0, 0.0: 36, 0.5: 14})      # 36 losses and 14 ties in 50 games
    >>> round(e.elo, 1), round(e.error, 1)
    (-315.3, 95.6)

    Every score 0 (or every score 1) leaves no spread to go by: the interval is then the
    one-sided bound of `sweep_bound`, from -inf (or to +inf).

    >>> e = estimate({0.0: 50})                        # 50 losses
    >>> e.elo, e.low, round(e.high, 1)
    (-inf, -inf, -483.8)
    """
    n = sum(counts.values())
    if n == 0:
        return Estimate(0, math.nan, math.nan, -math.inf, math.inf, math.nan)
    mean = sum(v * c for v, c in counts.items()) / n
    if mean in (0.0, 1.0):
        bound = sweep_bound(n, confidence)
        if mean == 0.0:
            return Estimate(n, mean, -math.inf, -math.inf, -bound, 0.0)
        return Estimate(n, mean, math.inf, bound, math.inf, 1.0)
    variance = sum(c * (v - mean) ** 2 for v, c in counts.items()) / n
    error = math.sqrt(variance / n)
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    if error > 0:
        los = NormalDist().cdf((mean - 0.5) / error)
    else:
        los = 1.0 if mean > 0.5 else 0.0 if mean < 0.5 else 0.5
    return Estimate(n, mean, elo(mean), elo(mean - z * error), elo(mean + z * error), los)


def sweep_bound(n: int, confidence: float = 0.95) -> float:
    """The Elo difference that an agent which scored 1 in each of n observations is above,
    at this confidence (a one-sided bound; below 0 for n < 5 at 95%: too few to tell it is
    the stronger): elo(alpha ** (1/n)), alpha = 1 - confidence. Whatever the distribution
    of scores in 0..1 with mean p, all n are 1 with probability at most p ** n, which is
    alpha at that mean (the rule of three's exact form: alpha ** (1/n) is about 1 - 3/n at
    95%). A score of 0 in each mirrors it.

    >>> round(sweep_bound(50), 1), round(sweep_bound(1000), 1)
    (483.8, 1009.1)
    """
    return elo((1 - confidence) ** (1 / n))


# ---- the sequential probability ratio test ---------------------------------------------

def llr(counts: Counts, elo0: float, elo1: float) -> float:
    """The generalised log-likelihood ratio of H1 (the Elo difference is elo1) against H0
    (it is elo0), logistic Elo, from scores counted by value.

    For each hypothesis the distribution of the observed scores is the most likely one
    whose mean is the hypothesis' expected score (M. Van den Bergh, "Comments on Normalized
    Elo", proposition 1.1; what fishtest and fastchess compute). The scores 0 and 1 are
    always among the categories, a count of zero counting as 0.001 (as fastchess does), so
    both hypotheses stay reachable whatever was seen.

    >>> round(llr({0.0: 223, 0.25: 9863, 0.5: 20279 + 1000, 0.75: 10037, 1.0: 246}, 0.5, 2.5), 2)
    -3.07
    """
    merged = {0.0: 0, 1.0: 0}
    for value, count in counts.items():
        merged[float(value)] = merged.get(float(value), 0) + count
    values = sorted(merged)
    weights = [merged[v] or 1e-3 for v in values]
    n = sum(weights)
    p = [w / n for w in weights]

    def likeliest(s: float) -> list[float]:
        # p_i / (1 + theta (a_i - s)), theta solving sum p_i (a_i - s) / (1 + theta (a_i - s)) = 0;
        # the left side falls from +inf to -inf between the poles below
        def slope(theta: float) -> float:
            return sum(pi * (a - s) / (1 + theta * (a - s)) for a, pi in zip(values, p))
        low, high = -1 / (values[-1] - s), -1 / (values[0] - s)
        inset = (high - low) * 1e-12
        theta = _root(slope, low + inset, high - inset)
        return [pi / (1 + theta * (a - s)) for a, pi in zip(values, p)]

    p0, p1 = likeliest(expected_score(elo0)), likeliest(expected_score(elo1))
    return n * sum(pi * (math.log(b) - math.log(a)) for pi, a, b in zip(p, p0, p1))


def _root(falling: Callable[[float], float], low: float, high: float) -> float:
    """Where `falling`, positive at `low` and negative at `high`, crosses 0: bisection down
    to adjacent floats (as exact as the sums allow; scipy's brentq agrees to 1e-11).

    >>> math.isclose(_root(lambda x: 2 - x * x, 0.0, 2.0), math.sqrt(2), rel_tol=1e-15)
    True
    """
    while True:
        middle = (low + high) / 2
        if middle in (low, high):
            return middle
        if falling(middle) > 0:
            low = middle
        else:
            high = middle


class SPRT:
    """Wald's sequential test of H0: the Elo difference is elo0, against H1: it is elo1,
    with error rates alpha (accepting H1 when H0 holds) and beta (the reverse).

    >>> test = SPRT.parse("elo0=0,elo1=10")
    >>> round(test.lower, 2), round(test.upper, 2)
    (-2.94, 2.94)
    >>> test.decision(3.1)
    'H1'
    """

    def __init__(self, elo0: float = 0.0, elo1: float = 10.0, alpha: float = 0.05,
                 beta: float = 0.05) -> None:
        if not elo0 < elo1:
            raise ValueError(f"SPRT: elo0 must be less than elo1, got {elo0} and {elo1}")
        for name, value in (("alpha", alpha), ("beta", beta)):
            if not 0 < value < 0.5:
                raise ValueError(f"SPRT: {name} must be between 0 and 0.5, got {value}")
        self.elo0, self.elo1, self.alpha, self.beta = elo0, elo1, alpha, beta
        self.lower = math.log(beta / (1 - alpha))
        self.upper = math.log((1 - beta) / alpha)

    @classmethod
    def parse(cls, text: str) -> Self:
        """From `elo0=0,elo1=10,alpha=0.05,beta=0.05` (alpha and beta default to 0.05)."""
        values: dict[str, float] = {}
        for part in text.split(","):
            key, equals, value = part.strip().partition("=")
            if not equals or key not in ("elo0", "elo1", "alpha", "beta") or key in values:
                raise ValueError(f"SPRT {text!r}: expected elo0=..,elo1=..[,alpha=..,beta=..], "
                                 f"each once, not {part.strip()!r}")
            try:
                values[key] = float(value)
            except ValueError:
                raise ValueError(f"SPRT {text!r}: {key} must be a number, not {value!r}") from None
            if not math.isfinite(values[key]):
                raise ValueError(f"SPRT {text!r}: {key} must be finite")
        for key in ("elo0", "elo1"):
            if key not in values:
                raise ValueError(f"SPRT {text!r}: {key} is missing")
        return cls(**values)

    def llr(self, counts: Counts) -> float:
        """The log-likelihood ratio of the results so far (see llr)."""
        return llr(counts, self.elo0, self.elo1)

    def decision(self, value: float) -> Literal["H0", "H1"] | None:
        """'H1' once the ratio reaches the upper bound, 'H0' once it falls to the lower
        one, else None (play on)."""
        if value >= self.upper:
            return "H1"
        if value <= self.lower:
            return "H0"
        return None

    def __str__(self) -> str:
        return (f"SPRT elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} "
                f"beta={self.beta:g}")


# ---- Bradley–Terry ---------------------------------------------------------------------

class Ratings(NamedTuple):
    """Bradley–Terry ratings in Elo, with their standard errors."""

    elo: list[float]
    error: list[float]

    def interval(self, k: int, confidence: float = 0.95) -> tuple[float, float]:
        """The normal interval of agent k's rating at this confidence."""
        z = NormalDist().inv_cdf(0.5 + confidence / 2)
        return self.elo[k] - z * self.error[k], self.elo[k] + z * self.error[k]


Ratings.elo.__doc__ = ("Each agent's rating in Elo, centred on their mean (or with the anchor "
                       "at 0).")
Ratings.error.__doc__ = ("Each rating's standard error in Elo (of its difference from the "
                         "anchor, when there is one).")


_Vector: TypeAlias = npt.NDArray[np.float64]


def bradley_terry(points: Sequence[Sequence[float]], prior: float = 1.0,
                  ridge: float = 1e-6, anchor: int | None = None) -> Ratings:
    """Bradley–Terry ratings from pairwise results: points[i][j] is what agent i scored
    against agent j over their meetings (1 a win, 1/2 a tie).

    The maximum-likelihood strengths of P(i beats j) = 1 / (1 + exp(r_j - r_i)), found by
    scipy.optimize with the exact gradient and Hessian. `prior` adds that many virtual
    ties between every two agents that met (as BayesElo's prior of virtual draws does):
    without it an agent that won every meeting would be rated infinitely strong. A tiny
    ridge penalty keeps prior=0 finite too. Errors are from the inverse of the observed
    information, for ratings summing to 0. With `anchor`, agent `anchor` is rated 0 and
    each error is that of the agent's difference from it (the anchor's own is 0). It needs
    scipy (pip install 'photocore[ratings]'), ImportError without it.

    >>> r = bradley_terry([[0, 2, 4], [1, 0, 2], [1, 1, 0]], prior=0)   # 2:1, 2:1 and 4:1
    >>> [round(x, 1) + 0.0 for x in r.elo]
    [120.4, 0.0, -120.4]
    >>> [round(x, 1) + 0.0 for x in bradley_terry([[0, 2, 4], [1, 0, 2], [1, 1, 0]], prior=0,
    ...                                          anchor=2).elo]
    [240.8, 120.4, 0.0]
    """
    try:
        from scipy.optimize import minimize
    except ImportError as e:     # scipy is the `ratings` extra: this fit alone needs it
        raise ImportError(f"Bradley-Terry ratings need scipy ({e}): pip install "
                          "'photocore[ratings]'", name="scipy") from e
    won = np.asarray(points, dtype=np.float64)
    met = (won + won.T) > 0
    won = won + prior / 2 * met
    games = won + won.T

    def cost(r: _Vector) -> float:
        d = r[:, None] - r[None, :]
        # -sum w_ij log sigmoid(r_i - r_j), stable for large differences
        return float((won * np.logaddexp(0, -d)).sum() + ridge * (r @ r))

    def gradient(r: _Vector) -> _Vector:
        d = r[:, None] - r[None, :]
        p: _Vector = 1 / (1 + np.exp(-d))         # P(i beats j)
        # each agent's expected points less its points (typed: numpy's sums are Any)
        surplus: _Vector = (games * p - won).sum(axis=1)
        return surplus + 2 * ridge * r

    def information(r: _Vector) -> _Vector:
        d = r[:, None] - r[None, :]
        p: _Vector = 1 / (1 + np.exp(-d))
        w = games * p * (1 - p)
        total: _Vector = w.sum(axis=1)
        return np.diag(total) - w

    n = len(won)
    fit = minimize(cost, np.zeros(n), jac=gradient,
                   hess=lambda r: information(r) + 2 * ridge * np.eye(n), method="trust-exact")
    r = fit.x - fit.x.mean()
    covariance = np.linalg.pinv(information(r))    # the pseudo-inverse: ratings summing to 0
    variance = np.diag(covariance)
    if anchor is not None:
        if not 0 <= anchor < n:
            raise ValueError(f"anchor must be an agent's index, 0 to {n - 1}, got {anchor}")
        variance = variance + covariance[anchor, anchor] - 2 * covariance[:, anchor]
        r = r - r[anchor]
    errors = np.sqrt(np.clip(variance, 0, None))
    return Ratings([float(x) * ELO_PER_LOGIT for x in r],
                   [float(x) * ELO_PER_LOGIT for x in errors])


def wilson(wins: int, games: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval of a win rate: it stays inside 0..1 and is not empty at
    0 or `games` wins.

    >>> [round(x, 4) for x in wilson(200, 200)]
    [0.9812, 1.0]
    """
    if games <= 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    rate, spread = wins / games, z * z / games
    centre = (rate + spread / 2) / (1 + spread)
    half = z * math.sqrt(rate * (1 - rate) / games + spread / (4 * games)) / (1 + spread)
    # at no wins (every win) the bound is exactly 0 (1): rounding would leave it a hair off
    return (0.0 if wins <= 0 else max(0.0, centre - half),
            1.0 if wins >= games else min(1.0, centre + half))
