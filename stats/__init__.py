"""Agreement statistics for judge scores against labels, and bootstrap intervals around them.

Why in the package: the `compare` and `calibrate` commands (coming) report how well a judge
agrees with human labels and whether one run beats another; the repository's benchmarks use
the same functions, so a figure means the same thing everywhere. The metrics come from scikit-learn and
SciPy; what is ours is the convention around them: every function returns None when its figure
is undefined on the input (one class missing, a constant series), never NaN or a made-up
number, and intervals come from a seeded resampler, so a report is reproducible.
"""

from .bootstrap import bootstrap_interval, paired_bootstrap_interval
from .classification import balanced_accuracy, best_threshold, cohen_kappa
from .correlation import pearson, spearman
from .ranking import auroc, pairwise_accuracy

__all__ = [
    "auroc", "balanced_accuracy", "best_threshold", "bootstrap_interval", "cohen_kappa",
    "paired_bootstrap_interval", "pairwise_accuracy", "pearson", "spearman",
]
