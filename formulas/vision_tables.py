"""Vision towers with a learned position table resampled to each image's grid.

Qwen3.5's ViT (num_position_embeddings = 2,304 = 48 x 48 rows, bilinear) and Kimi-K2.5's
MoonViT (a 64 x 64 table, bicubic) read dynamic-resolution images, as Qwen2-VL does, but
keep a learned table of fixed size that is interpolated to each image's patch grid
(transformers modeling_qwen3_5_moe.py Qwen3_5MoeVisionModel.pos_embed; modeling_kimi_k25.py
Kimi_K25VisionPositionEmbeddings). The table's rows are parameters, whatever the image.
Declared before formulas/vision.py so that this form of vision_positions_per_tile is the one
such towers take (variant vision_table). Shortcut: the interpolation's FLOPs are not counted.
"""

from ledgerbuild.ledger import model_input, quantity

SRC = (
    "HF transformers 5.23.0 modeling_qwen3_5_moe.py (pos_embed: nn.Embedding(num_position_embeddings, d_v)); "
    "modeling_kimi_k25.py (position_embeddings: pos_emb_height x pos_emb_width x d_v)"
)

vision_position_rows = model_input(
    "vision_position_rows",
    "positions",
    "Rows of a learned position table resampled to each image (Qwen3.5: 2304; MoonViT: 64 x 64)",
    source="HF config.json vision_config (num_position_embeddings; init_pos_emb_height x width)",
    default=0,
)
quantity(
    "vision_positions_per_tile",
    vision_position_rows,
    "positions",
    "Rows of the learned position table (a fixed table interpolated to each image's grid)",
    source=SRC,
    integer=True,
    topic="multimodal",
    when="vision_table",
)
