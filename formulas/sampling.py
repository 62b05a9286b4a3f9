"""Sampling cost: what choosing the next token costs over the vocabulary.

Lecture §7.4 (seeds/000): top-p written directly sorts the whole vocabulary by probability,
takes the cumulative sum and truncates; a comparison sort needs about V log2 V comparisons
(128K vocabulary: about 2.2 million), per request per step. The sorting-free rejection
sampler (FlashInfer, 2025) reads the row once per round (compare + sum), one or two rounds
on average. Shortcut: the comparison count of an ideal comparison sort, not a GPU radix sort.
"""

from sympy import log

from ledgerbuild.ledger import quantity

from .inputs import vocab_size
from .sources import LECTURE

T = "sampling"
S74 = LECTURE + " §7.4"

quantity(
    "sort_comparisons",
    vocab_size * log(vocab_size, 2),
    "comparisons",
    "Comparisons a sort-based top-p needs over the vocabulary, V log2 V (per request per step)",
    source=S74 + " (128K vocabulary: about 2.2 million); Knuth TAOCP vol. 3 §5.3.1 (lower bound log2 V!)",
    topic=T,
)
quantity(
    "rejection_reads_per_round",
    vocab_size,
    "elements",
    "Probabilities one round of the sorting-free rejection sampler reads (one compare + sum "
    "pass over the row; one or two rounds on average)",
    source=S74 + " (FlashInfer's rejection sampling)",
    topic=T,
    integer=True,
)
