"""Oracle: Qwen2-Audio (issue 12, audio tokens) against transformers.

- params_audio and params_connector equal the audio tower and the projector of the
  transformers model on the meta device;
- audio_tokens equals what transformers counts for a waveform: WhisperFeatureExtractor's
  attention mask (mel frames) through Qwen2AudioEncoder._get_feat_extract_output_lengths.
"""

import numpy as np
import pytest
import torch

from hf_oracle import causal_lm
from ledgerbuild import catalog
from ledgerbuild.evaluate import evaluate

pytestmark = pytest.mark.oracle


def test_audio_encoder_and_projector_parameters_equal_transformers():
    model = causal_lm(catalog.models()["qwen2-audio-7b"].config, "meta")
    parts = {"model.audio_tower.": 0, "model.multi_modal_projector.": 0}
    for name, p in model.named_parameters():
        for prefix in parts:
            if name.startswith(prefix):
                parts[prefix] += p.numel()
    r = evaluate("qwen2-audio-7b")
    assert (r.value("params_audio"), r.value("params_connector")) == tuple(parts.values())


@pytest.mark.parametrize("seconds", ["0.31", "1", "2.5", "7.77", "10", "29.99", "30"])
def test_audio_tokens_equal_the_feature_extractor_and_encoder(seconds):
    from transformers import WhisperFeatureExtractor
    from transformers.models.qwen2_audio.modeling_qwen2_audio import Qwen2AudioEncoder

    samples = int(float(seconds) * 16000)
    features = WhisperFeatureExtractor(feature_size=128)(
        np.zeros(samples, dtype=np.float32),
        sampling_rate=16000,
        return_attention_mask=True,
        return_tensors="np",
    )
    frames = int(features["attention_mask"].sum())
    _, tokens = Qwen2AudioEncoder._get_feat_extract_output_lengths(None, torch.tensor(frames))
    r = evaluate("qwen2-audio-7b", {"audio_seconds": seconds})
    assert (r.value("audio_mel_frames"), r.value("audio_tokens")) == (frames, int(tokens))
