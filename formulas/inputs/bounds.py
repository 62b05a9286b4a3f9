"""Bounds on the work (issue 30): an input that scales a run's time or the size of its numbers
stops at a stated limit (hi=), refused in one line when a --set value is read and kept by the
workbook's data validation. Each limit is a guard well beyond any model or deployment, not a
physical claim. The longest trained context in models/ is 10,485,760 tokens (Llama 4 Scout).
"""

MAX_TOKENS = 10**8  # a prompt, an output, a context, a training sequence
MAX_REQUESTS = 10**7  # a batch, a concurrency, an engine's batch limit
MAX_GPUS = 10**5  # a GPU count
