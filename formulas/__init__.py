"""The ledger itself: one module per topic, imported in dependency order.

A new topic is a new module here (plus its catalog fields); add it to TOPICS.
"""

from importlib import import_module

TOPICS = [
    "inputs",
    "vision_tables",
    "vision",
    "vq_tokenizer",
    "vision_navit",
    "audio",
    "linear_attention",
    "sparse_attention",
    "params",
    "numerics",
    "flops",
    "kv_cache",
    "sparse_attention_costs",
    "moe",
    "kv_pool",
    "memory",
    "latency",
    "ownership",
    "serving",
    "roofline",
    "moe_serving",
    "offline",
    "load",
    "image_cost",
    "long_context",
    "rope",
    "layer_steps",
    "training",
    "speculative",
    "sampling",
    "plan",
]

for _topic in TOPICS:
    import_module(f"{__name__}.{_topic}")
