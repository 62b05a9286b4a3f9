"""Audio-language models: a Whisper-style encoder, audio tokens per second, what audio costs.

Whisper (Radford et al. 2022, arXiv:2212.04356 §2.2) reads 30-second windows of 80- or
128-bin log-mel frames at 100 frames a second (16 kHz, hop 160); two convolutions (the second
of stride 2) make 1,500 encoder positions a window: 50 a second. Qwen2-Audio (arXiv:2407.10759
§2) average-pools them 2:1 and projects each to the language model's width: 25 audio tokens a
second, 750 a window. The encoder runs on whole 30-s windows (the feature extractor pads to
30 s); the tokens follow the audio's length.

Shortcuts: encoder FLOPs count matmuls (the two convolutions as 2 x weights x positions) and
the attention's 4 L n^2 d per window; norms, GELU and pooling are not counted; a request's
audio is `audio_seconds` of one clip, in windows of 30 s.
"""

from sympy import ceiling, floor

from ledgerbuild.ledger import model_input, quantity, scenario_input

from .inputs import hidden_size as d

T = "multimodal"
WHISPER = "Whisper (arXiv:2212.04356) §2.2: 30 s windows, 1,500 encoder positions"
QWEN2_AUDIO = "Qwen2-Audio (arXiv:2407.10759) §2; HF modeling_qwen2_audio.py (avg_pooler, projector)"
A = "HF config.json audio_config (ledgerbuild/families_vision.py)"

d_a = model_input("audio_hidden_size", "elements", "Width of the audio encoder", source=A, default=0)
L_a = model_input("audio_num_layers", "layers", "Audio encoder blocks", source=A, default=0)
d_ffa = model_input(
    "audio_intermediate_size", "elements", "Width of the audio encoder's MLP", source=A, default=0
)
mels = model_input("audio_num_mel_bins", "bins", "Mel bins per frame", source=A, default=0)
positions = model_input(
    "audio_max_source_positions", "positions", "Encoder positions per window (1,500)", source=A, default=0
)
chunk = model_input("audio_chunk_seconds", "s", "Seconds per encoder window", source=WHISPER, default=0)
mel_rate = model_input(
    "audio_mel_frames_per_second",
    "frames/s",
    "Mel frames a second (WhisperFeatureExtractor: 16,000 Hz / hop 160)",
    source=WHISPER,
    default=0,
)
kernel = model_input(
    "audio_conv_kernel", "frames", "Width of the two convolutions (3)", source=WHISPER, default=0
)
pool = model_input(
    "audio_pool", "positions", "Encoder positions pooled into one token", source=QWEN2_AUDIO, default=1
)


audio_seconds = scenario_input(
    "audio_seconds",
    "s",
    "Audio per request (its tokens join the prompt)",
    default=0,
    lo=0,
    hi=10**5,
    source=QWEN2_AUDIO,
)

params_audio = quantity(
    "params_audio",
    mels * d_a * kernel
    + d_a
    + d_a * d_a * kernel
    + d_a
    + positions * d_a
    + L_a * (4 * d_a**2 + 3 * d_a + 2 * d_a * d_ffa + d_ffa + d_a + 4 * d_a)
    + 2 * d_a,
    "params",
    "Audio encoder: two convolutions (kernel 3), learned positions, blocks (q, v, out biased; "
    "fc1, fc2; two LayerNorms), the final LayerNorm",
    source=WHISPER + "; " + QWEN2_AUDIO,
    topic=T,
    integer=True,
    when="audio",
)
quantity(
    "params_connector",
    d_a * d + d,
    "params",
    "Connector parameters: one projection to d (with bias)",
    source=QWEN2_AUDIO,
    topic=T,
    integer=True,
    when="audio",
)
audio_frames_per_s = quantity(
    "audio_encoder_frames_per_second",
    positions / chunk,
    "positions/s",
    "Encoder positions a second of audio: positions per window / window seconds",
    source=WHISPER,
    topic=T,
    when="audio",
)
audio_tokens_per_second = quantity(
    "audio_tokens_per_second",
    audio_frames_per_s / pool,
    "tokens/s",
    "Audio tokens a second after pooling",
    source=QWEN2_AUDIO,
    topic=T,
    when="audio",
)
mel_frames = quantity(
    "audio_mel_frames",
    floor(audio_seconds * mel_rate),
    "frames",
    "Mel frames of a request's audio (whole hops)",
    source=WHISPER,
    topic=T,
    integer=True,
    when="audio",
)
audio_positions = quantity(
    "audio_encoder_positions",
    floor((mel_frames - 1) / 2) + 1,
    "positions",
    "Encoder positions the audio fills (the stride-2 convolution)",
    source=QWEN2_AUDIO + " (_get_feat_extract_output_lengths)",
    topic=T,
    integer=True,
    when="audio",
)
audio_tokens = quantity(
    "audio_tokens",
    floor((audio_positions - pool) / pool) + 1,
    "tokens",
    "Prompt tokens a request's audio adds (positions pooled 2:1)",
    source=QWEN2_AUDIO,
    topic=T,
    integer=True,
    when="audio",
)
audio_windows = quantity(
    "audio_windows",
    ceiling(audio_seconds / chunk),
    "windows",
    "Encoder windows a request's audio fills (padded to whole windows)",
    source=WHISPER,
    topic=T,
    integer=True,
    when="audio",
)
audio_flops_per_window = quantity(
    "audio_flops_per_window",
    2 * 2 * positions * kernel * mels * d_a
    + 2 * positions * kernel * d_a**2
    + 2 * positions * L_a * (4 * d_a**2 + 2 * d_a * d_ffa)
    + 4 * L_a * positions**2 * d_a
    + 2 * (d_a * d + d) * positions / pool,
    "FLOP",
    "Encoder FLOPs per 30-s window: the convolutions (the first at twice the positions), "
    "blocks, attention 4 L n^2 d, the projection of the pooled tokens",
    source=WHISPER + "; lecture §4",
    topic=T,
    when="audio",
)
audio_flops_per_request = quantity(
    "audio_flops_per_request",
    audio_windows * audio_flops_per_window,
    "FLOP",
    "Encoder FLOPs of a request's audio",
    source=WHISPER,
    topic=T,
    when="audio",
)
