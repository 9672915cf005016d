"""Build the encoder IRs of the ``encoders`` conformance suite: random weights, nothing downloaded.

    CI=true python -m tools.zoo.make_encoders OUT [NAME ...] [--force]

Every model is made from a ``transformers`` (or ``diffusers``) config written here (fixed seed,
hidden 32, 2 layers), saved with ``save_pretrained`` to a temporary directory and exported the
way users export it:

* ``optimum-cli export openvino --task <task> --weight-format fp32|fp16|int8`` (a child process;
  int8 is NNCF's weight compression as optimum-intel applies it) of 40 architectures: text (BERT
  feature extraction and classification, DistilBERT, RoBERTa, ALBERT, DeBERTa-v2, MPNet, ConvBERT,
  RoFormer, Longformer, SqueezeBERT, ESM, MobileBERT), image (ViT, DINOv2, BEiT, Swin, Swin-v2,
  YOLOS, DETR, SegFormer, MobileViT, ConvNeXt, ConvNeXt-v2, LeViT, ResNet, EfficientNet,
  MobileNetV2, PoolFormer, Swin2SR, DPT, GLPN), text+image (CLIP, SigLIP, OWL-ViT) and audio
  (wav2vec2 CTC, HuBERT, WavLM, SEW-D, data2vec-audio, AST);
* diffusers' UNet2DConditionModel, AutoencoderKL decoder, SD3Transformer2DModel and
  FluxTransformer2DModel (its RoPE computes in f64) by ``openvino.convert_model`` on the torch
  module (optimum's diffusers export wants a whole pipeline: tokenizer, text encoder, VAE, scheduler);
* ``nncf.compress_weights`` on the fp32 IRs: int8 (asymmetric, symmetric), int4 (sym, asym), nf4,
  nvfp4, cb4 (ViT; group 16, every layer), mxfp4, fp8_e4m3, fp4 (BERT), and ``nncf.quantize``
  (post-training quantisation, a random calibration set of 8 samples): FakeQuantize on BERT, ViT,
  ConvNeXt, wav2vec2, Swin, DeBERTa-v2, MobileNetV2 and the UNet, FakeConvert (fp8_e4m3 mode) on BERT.

Left out, the exporters failing on them (optimum-intel 1.27, transformers 4.57): wav2vec2-conformer
(the torch tracer's check finds two traces differ), RT-DETR (optimum's dummy input generator wants
a "height" it is not given), PVT (optimum's reload of the saved model fails on a Linear's state).

Each case is ``OUT/<model>/<weights>/`` with model.xml, model.bin and build.json (the command and
the ``recipe`` hash: a cached case is rebuilt when its recipe, config or an exporter's version changes);
``feeds(model)`` gives the inputs the suite runs it on (three input sets of different shapes, fixed
seed). Tool-only dependencies: torch, transformers, optimum-intel, nncf, diffusers.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("CI", "true")            # OpenVINO's telemetry stalls without it
VOCAB = 1000
TEXT = dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
            max_position_embeddings=64)
VISION = dict(image_size=32, patch_size=8, num_channels=3, hidden_size=32, num_hidden_layers=2,
              num_attention_heads=4, intermediate_size=64)

WAV2VEC2_TINY = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                     conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=8,
                     num_conv_pos_embedding_groups=4, feat_extract_norm="layer", do_stable_layer_norm=True)
#: model -> (transformers class and config, optimum task); the family picks the inputs.
HF = {
    "bert": ("BertModel", "BertConfig", TEXT, "feature-extraction"),
    "bert_cls": ("BertForSequenceClassification", "BertConfig", {**TEXT, "num_labels": 3}, "text-classification"),
    "clip": ("CLIPModel", "CLIPConfig", dict(
        text_config={**TEXT, "max_position_embeddings": 16}, vision_config=VISION, projection_dim=16),
        "zero-shot-image-classification"),
    "vit": ("ViTForImageClassification", "ViTConfig", {**VISION, "num_labels": 5}, "image-classification"),
    "convnext": ("ConvNextForImageClassification", "ConvNextConfig", dict(
        num_channels=3, num_stages=2, hidden_sizes=[16, 32], depths=[1, 1], image_size=32, num_labels=5),
        "image-classification"),
    "wav2vec2": ("Wav2Vec2ForCTC", "Wav2Vec2Config", dict(WAV2VEC2_TINY, vocab_size=32),
                 "automatic-speech-recognition"),
    "distilbert": ("DistilBertModel", "DistilBertConfig", dict(
        vocab_size=VOCAB, dim=32, n_layers=2, n_heads=4, hidden_dim=64, max_position_embeddings=64),
        "feature-extraction"),
    "roberta": ("RobertaModel", "RobertaConfig", {**TEXT, "pad_token_id": 1, "type_vocab_size": 1},
                "feature-extraction"),
    "albert": ("AlbertModel", "AlbertConfig", {**TEXT, "embedding_size": 16}, "feature-extraction"),
    "deberta_v2": ("DebertaV2Model", "DebertaV2Config", dict(
        **TEXT, relative_attention=True, position_buckets=8, max_relative_positions=16, pos_att_type=["p2c", "c2p"]),
        "feature-extraction"),
    "swin": ("SwinForImageClassification", "SwinConfig", dict(
        image_size=32, patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[2, 4], window_size=4, num_labels=5),
        "image-classification"),
    "resnet": ("ResNetForImageClassification", "ResNetConfig", dict(
        embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1], layer_type="bottleneck", num_labels=5),
        "image-classification"),
    "hubert": ("HubertModel", "HubertConfig", dict(WAV2VEC2_TINY), "feature-extraction"),
    "wavlm": ("WavLMModel", "WavLMConfig", dict(WAV2VEC2_TINY, num_buckets=16, max_bucket_distance=32),
              "feature-extraction"),
    "dinov2": ("Dinov2ForImageClassification", "Dinov2Config", {**VISION, "mlp_ratio": 2, "num_labels": 5},
               "image-classification"),
    "beit": ("BeitForImageClassification", "BeitConfig", {**VISION, "use_relative_position_bias": True,
                                                          "num_labels": 5}, "image-classification"),
    "swinv2": ("Swinv2ForImageClassification", "Swinv2Config", dict(
        image_size=32, patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[2, 4], window_size=4, num_labels=5),
        "image-classification"),
    "yolos": ("YolosForObjectDetection", "YolosConfig", {**VISION, "image_size": [32, 32], "num_detection_tokens": 5,
                                                         "num_labels": 3}, "object-detection"),
    "segformer": ("SegformerForSemanticSegmentation", "SegformerConfig", dict(
        num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[16, 32], patch_sizes=[7, 3],
        strides=[4, 2], num_attention_heads=[1, 2], mlp_ratios=[2, 2], decoder_hidden_size=32, num_labels=3),
        "semantic-segmentation"),
    "mobilevit": ("MobileViTForImageClassification", "MobileViTConfig", dict(
        image_size=32, patch_size=2, hidden_sizes=[16, 24, 32], neck_hidden_sizes=[8, 8, 16, 16, 16, 24, 32],
        num_attention_heads=2, num_labels=5), "image-classification"),
    "convnextv2": ("ConvNextV2ForImageClassification", "ConvNextV2Config", dict(
        num_stages=2, hidden_sizes=[16, 32], depths=[1, 1], num_labels=5), "image-classification"),
    "levit": ("LevitForImageClassification", "LevitConfig", dict(
        image_size=32, hidden_sizes=[16, 32, 48], num_attention_heads=[2, 2, 2], depths=[1, 1, 1],
        key_dim=[8, 8, 8], num_labels=5), "image-classification"),
    "efficientnet": ("EfficientNetForImageClassification", "EfficientNetConfig", dict(
        image_size=32, width_coefficient=0.1, depth_coefficient=0.1, hidden_dim=128, num_labels=5),
        "image-classification"),
    "siglip": ("SiglipModel", "SiglipConfig", dict(
        text_config={**TEXT, "max_position_embeddings": 16}, vision_config=VISION), "zero-shot-image-classification"),
    "mpnet": ("MPNetForMaskedLM", "MPNetConfig", TEXT, "fill-mask"),
    "convbert": ("ConvBertForTokenClassification", "ConvBertConfig", {**TEXT, "embedding_size": 32, "num_labels": 3},
                 "token-classification"),
    "roformer": ("RoFormerForQuestionAnswering", "RoFormerConfig", {**TEXT, "embedding_size": 32},
                 "question-answering"),
    "sew_d": ("SEWDModel", "SEWDConfig", dict(WAV2VEC2_TINY, squeeze_factor=2, max_position_embeddings=64,
                                              position_buckets=16, feat_extract_norm="group"), "feature-extraction"),
    "data2vec_audio": ("Data2VecAudioForSequenceClassification", "Data2VecAudioConfig", dict(
        WAV2VEC2_TINY, conv_pos_kernel_size=5, num_conv_pos_embeddings=2, num_labels=3), "audio-classification"),
    "ast": ("ASTForAudioClassification", "ASTConfig", dict(
        hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, patch_size=16,
        frequency_stride=10, time_stride=10, max_length=64, num_mel_bins=32, num_labels=3), "audio-classification"),
    "longformer": ("LongformerModel", "LongformerConfig", {**TEXT, "attention_window": 4, "pad_token_id": 1},
                   "feature-extraction"),
    "squeezebert": ("SqueezeBertModel", "SqueezeBertConfig", {**TEXT, "embedding_size": 32, **{
        f"{g}_groups": 2 for g in ("q", "k", "v", "post_attention", "intermediate", "output")}}, "feature-extraction"),
    "esm": ("EsmForMaskedLM", "EsmConfig", {**TEXT, "vocab_size": 33, "position_embedding_type": "rotary",
                                            "pad_token_id": 1, "mask_token_id": 32, "token_dropout": True},
            "fill-mask"),
    "mobilebert": ("MobileBertModel", "MobileBertConfig", {**TEXT, "embedding_size": 16, "intra_bottleneck_size": 16,
                                                          "true_hidden_size": 16, "num_feedforward_networks": 2},
                   "feature-extraction"),
    "swin2sr": ("Swin2SRForImageSuperResolution", "Swin2SRConfig", dict(
        image_size=32, embed_dim=16, depths=[1], num_heads=[2], window_size=4, upscale=2, upsampler="pixelshuffle"),
        "image-to-image"),
    "dpt": ("DPTForDepthEstimation", "DPTConfig", {**VISION, "num_hidden_layers": 4, "backbone_out_indices": [0, 1, 2, 3],
                                                  "neck_hidden_sizes": [8, 16, 32, 32],
                                                  "fusion_hidden_size": 16}, "depth-estimation"),
    "glpn": ("GLPNForDepthEstimation", "GLPNConfig", dict(
        num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[16, 32], patch_sizes=[7, 3],
        strides=[4, 2], num_attention_heads=[1, 2], mlp_ratios=[2, 2], decoder_hidden_size=16), "depth-estimation"),
    "mobilenet_v2": ("MobileNetV2ForImageClassification", "MobileNetV2Config", dict(
        image_size=32, depth_multiplier=0.25, num_labels=5), "image-classification"),
    "poolformer": ("PoolFormerForImageClassification", "PoolFormerConfig", dict(
        num_encoder_blocks=2, depths=[1, 1], hidden_sizes=[16, 32], patch_sizes=[7, 3], strides=[4, 2], padding=[2, 1],
        num_labels=5), "image-classification"),
    "owlvit": ("OwlViTForObjectDetection", "OwlViTConfig", dict(
        text_config={**TEXT, "max_position_embeddings": 16}, vision_config=VISION, projection_dim=32),
        "zero-shot-object-detection"),
    "detr": ("DetrForObjectDetection", "DetrConfig", dict(
        use_timm_backbone=False, use_pretrained_backbone=False, backbone_config=dict(
            model_type="resnet", embedding_size=8, hidden_sizes=[8, 16, 16, 32], depths=[1, 1, 1, 1],
            layer_type="basic", out_features=["stage4"]),
        d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2,
        encoder_ffn_dim=32, decoder_ffn_dim=32, num_queries=5, num_labels=3), "object-detection"),
}
#: model -> (diffusers class, its tiny arguments)
DIFFUSERS = {
    "unet": ("UNet2DConditionModel", dict(
        sample_size=8, in_channels=4, out_channels=4, block_out_channels=(16, 32), layers_per_block=1,
        down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"), up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"),
        cross_attention_dim=32, attention_head_dim=8, norm_num_groups=8)),
    "vae_decoder": ("AutoencoderKL", dict(
        in_channels=3, out_channels=3, down_block_types=("DownEncoderBlock2D",) * 2,
        up_block_types=("UpDecoderBlock2D",) * 2, block_out_channels=(8, 16), latent_channels=4, norm_num_groups=4,
        layers_per_block=1, sample_size=16)),
    "sd3": ("SD3Transformer2DModel", dict(
        sample_size=8, patch_size=2, in_channels=4, num_layers=1, attention_head_dim=8, num_attention_heads=2,
        joint_attention_dim=16, caption_projection_dim=16, pooled_projection_dim=16, out_channels=4,
        pos_embed_max_size=16)),
    "flux": ("FluxTransformer2DModel", dict(
        patch_size=1, in_channels=4, num_layers=1, num_single_layers=1, attention_head_dim=8, num_attention_heads=2,
        joint_attention_dim=16, pooled_projection_dim=16, axes_dims_rope=(2, 2, 4))),
}
PROCESSORS = {"dinov2": ("BitImageProcessor", dict(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32}))}
#: case -> how it is made: ("optimum", weight format) | ("convert",) | (nncf step, the fp32 case it starts from)
CASES: dict[str, tuple[str, ...]] = {
    "bert/fp32": ("optimum", "fp32"), "bert/fp16": ("optimum", "fp16"), "bert/int8": ("optimum", "int8"),
    "bert/ptq": ("quantize", "bert/fp32"),
    "bert_cls/fp32": ("optimum", "fp32"),
    "clip/fp32": ("optimum", "fp32"),
    "vit/fp32": ("optimum", "fp32"), "vit/int8w": ("compress_weights", "vit/fp32"),
    # 4/8-bit weight formats of nncf, every layer (ratio 1, all_layers): u4/i4/nf4/f4e2m1/f8e4m3
    # weights with f16/f8e8m0 scales, decompressed in the graph
    "vit/int8_sym": ("compress_weights", "vit/fp32", {"mode": "int8_sym"}),
    **{f"vit/{mode}": ("compress_weights", "vit/fp32", {"mode": mode, "group_size": 16, "ratio": 1.0,
                                                        "all_layers": True})
       for mode in ("int4_sym", "int4_asym", "nf4", "nvfp4", "cb4")},
    # these take no 4-d (convolution) weights (nncf 3.4 refuses ViT's patch embedding): on BERT
    **{f"bert/{mode}": ("compress_weights", "bert/fp32", {"mode": mode, "group_size": group, "ratio": 1.0})
       for mode, group in (("mxfp4", 32), ("fp8_e4m3", 16), ("fp4", 16))},
    "vit/ptq": ("quantize", "vit/fp32"),
    "bert/fp8": ("quantize", "bert/fp32", {"mode": "fp8_e4m3"}),
    "convnext/fp32": ("optimum", "fp32"), "convnext/ptq": ("quantize", "convnext/fp32"),
    # optimum-cli --weight-format int8 of an automatic-speech-recognition model looks for a seq2seq
    # openvino_encoder_model.xml (optimum-intel 1.27) and fails: the CTC model gets nncf directly.
    "wav2vec2/fp32": ("optimum", "fp32"), "wav2vec2/int8w": ("compress_weights", "wav2vec2/fp32"),
    "wav2vec2/ptq": ("quantize", "wav2vec2/fp32"),
    **{f"{m}/ptq": ("quantize", f"{m}/fp32") for m in ("swin", "deberta_v2", "mobilenet_v2", "unet")},
    "hubert/int8": ("optimum", "int8"),
    **{f"{m}/fp32": ("convert",) for m in DIFFUSERS},
    **{f"{m}/fp32": ("optimum", "fp32") for m in (
        "distilbert", "roberta", "albert", "deberta_v2", "mpnet", "convbert", "roformer", "siglip",
        "swin", "swinv2", "resnet", "dinov2", "beit", "yolos", "segformer", "mobilevit", "convnextv2", "levit",
        "efficientnet", "hubert", "wavlm", "sew_d", "data2vec_audio", "ast", "longformer",
        "squeezebert", "esm", "mobilebert", "swin2sr", "dpt", "glpn", "mobilenet_v2", "poolformer", "owlvit",
        "detr")},
}


TEXT_MODELS = ("bert", "bert_cls", "clip", "distilbert", "roberta", "albert", "deberta_v2", "mpnet", "convbert",
               "roformer", "siglip", "longformer", "squeezebert", "esm", "mobilebert", "owlvit")
IMAGE_MODELS = ("clip", "siglip", "vit", "convnext", "swin", "swinv2", "resnet", "dinov2", "beit", "yolos", "segformer",
                "mobilevit", "convnextv2", "levit", "efficientnet", "swin2sr", "dpt", "glpn", "mobilenet_v2",
                "poolformer", "owlvit", "detr")
AUDIO_MODELS = ("wav2vec2", "hubert", "wavlm", "sew_d", "data2vec_audio")
#: token ids below this (small vocabularies; CLIP-like text towers pool at the largest id)
ID_LIMIT = {"clip": 16, "owlvit": 16, "esm": 33}
#: image side where 32 is too small (detectors: stride-32 features of 2x2)
IMAGE_SIDE = {"detr": 64}
# longformer: OpenVINO CPU cannot run the export at a length that is not a multiple of the attention
# window (4): "the shape of input data (8.7.8) conflicts with the reshape pattern (0.-1.4.8)"; lengths 8, 4


def feeds(model: str) -> list[dict[str, np.ndarray]]:
    """The suite's input sets for ``model`` (three, of different batch and length; fixed seed):
    token ids with a padded second row, images, audio, or UNet latents + timestep + text states.
    A superset: the suite feeds only the inputs the IR has (optimum drops e.g. token_type_ids
    where the model has none)."""
    rng = np.random.default_rng(0)
    out = []
    for batch, n in ((2, 8), (1, 4), (3, 12)) if model == "longformer" else ((2, 7), (1, 5), (3, 12)):
        f: dict[str, np.ndarray] = {}
        if model in TEXT_MODELS:
            f["input_ids"] = rng.integers(1, ID_LIMIT.get(model, VOCAB), (batch, n)).astype(np.int64)
            f["attention_mask"] = np.ones((batch, n), np.int64)
            f["attention_mask"][1:, n - 2:] = 0
            segment = (np.arange(n) >= n // 2) if model.startswith("bert") else np.zeros(n)
            f["token_type_ids"] = segment.astype(np.int64)[None].repeat(batch, 0)
            f["global_attention_mask"] = (np.arange(n) == 0).astype(np.int64)[None].repeat(batch, 0)
        if model in IMAGE_MODELS:
            side = IMAGE_SIDE.get(model, 32)
            f["pixel_values"] = rng.standard_normal((batch, 3, side, side), np.float32)
            f["pixel_mask"] = np.ones((batch, side, side), np.int64)
        if model in AUDIO_MODELS:
            f["input_values"] = rng.standard_normal((batch, 80 * n), np.float32)
        if model == "ast":         # a fixed-length log-mel spectrogram: max_length x num_mel_bins
            f["input_values"] = rng.standard_normal((batch, 64, 32), np.float32)
        if model == "unet":
            f["sample"] = rng.standard_normal((batch, 4, 8, 8), np.float32)
            f["timestep"] = np.array(float(10 * n), np.float32)
            f["encoder_hidden_states"] = rng.standard_normal((batch, n, 32), np.float32)
        if model == "vae_decoder":
            f["latent_sample"] = rng.standard_normal((batch, 4, n + 1, 8), np.float32)
        if model in ("sd3", "flux"):     # sd3: a latent image; flux: 2x2-packed latent tokens + their ids
            side = 8 if model == "sd3" else 4
            f["hidden_states"] = rng.standard_normal(
                (batch, 4, side, side) if model == "sd3" else (batch, side * side, 4), np.float32)
            f["encoder_hidden_states"] = rng.standard_normal((batch, n, 16), np.float32)
            f["pooled_projections"] = rng.standard_normal((batch, 16), np.float32)
            f["timestep"] = np.full(batch, 0.1 * n, np.float32)
            if model == "flux":
                grid = np.stack(np.meshgrid(np.arange(side), np.arange(side), indexing="ij"), -1).reshape(-1, 2)
                f["img_ids"] = np.concatenate([np.zeros((side * side, 1)), grid], 1).astype(np.float32)
                f["txt_ids"] = np.zeros((n, 3), np.float32)
        out.append(f)
    return out


def _hf_model(model: str):
    import torch
    import transformers as t
    cls, cfg, kwargs, _ = HF[model]
    torch.manual_seed(0)
    return getattr(t, cls)(getattr(t, cfg)(**kwargs)).eval()


def save_random(model: str, dest: Path) -> None:
    """Write a randomly initialised ``model`` to ``dest`` (save_pretrained), and its image processor
    where optimum's export takes the image size of its dummy input from one (``PROCESSORS``)."""
    import transformers as t
    _hf_model(model).save_pretrained(dest)
    if model in PROCESSORS:
        getattr(t, PROCESSORS[model][0])(**PROCESSORS[model][1]).save_pretrained(dest)


def _diffusers_module(model: str):
    """The tiny diffusers model ``model`` (fixed seed) and the forward that returns its tensor."""
    import diffusers as d
    import torch
    torch.manual_seed(0)
    net = getattr(d, DIFFUSERS[model][0])(**DIFFUSERS[model][1]).eval()
    call = {"unet": lambda sample, timestep, encoder_hidden_states:
            net(sample, timestep, encoder_hidden_states, return_dict=False)[0],
            "vae_decoder": lambda latent_sample: net.decode(latent_sample, return_dict=False)[0],
            "sd3": lambda hidden_states, encoder_hidden_states, pooled_projections, timestep: net(
                hidden_states, encoder_hidden_states, pooled_projections, timestep, return_dict=False)[0],
            "flux": lambda hidden_states, encoder_hidden_states, pooled_projections, timestep, img_ids, txt_ids: net(
                hidden_states, encoder_hidden_states, pooled_projections, timestep, img_ids, txt_ids,
                return_dict=False)[0]}[model]

    class Wrap(torch.nn.Module):        # named tensor inputs, a tensor out (not diffusers' dataclass)
        def __init__(self):
            super().__init__()
            self.net = net

        def forward(self, *args):
            return call(*args)
    return Wrap()


def convert_diffusers(model: str, dest: Path) -> str:
    """The tiny diffusers ``model`` converted by openvino.convert_model (every input dimension
    dynamic but the channels); the command as text."""
    import openvino as ov
    import torch
    example = {k: torch.from_numpy(v) for k, v in feeds(model)[0].items()}
    shapes = [(k, [-1] * (v.ndim - 1) + [v.shape[-1]] if v.ndim > 1 else [-1] * v.ndim) for k, v in example.items()]
    if model in ("unet", "vae_decoder"):      # NCHW: channels fixed, batch and space dynamic
        shapes = [(k, [-1, v.shape[1], -1, -1] if v.ndim == 4 else dims) for (k, dims), v in zip(shapes, example.values())]
    m = ov.convert_model(_diffusers_module(model), example_input=tuple(example.values()),
                         input=[ov.PartialShape(dims) for _, dims in shapes])
    for port, name in zip(m.inputs, example):
        port.get_tensor().set_names({name})
    m.outputs[0].get_tensor().set_names({"out_sample"})
    ov.save_model(m, dest / "model.xml", compress_to_fp16=False)
    return (f"openvino.convert_model({DIFFUSERS[model][0]}(...), example_input=..., input={shapes}); "
            "openvino.save_model(compress_to_fp16=False)")


def nncf_step(step: str, src: Path, model: str, options: dict, dest: Path) -> str:
    """``nncf.compress_weights`` or ``nncf.quantize`` (8 random calibration samples drawn like the
    suite's first input set) on the fp32 IR ``src``; ``options``: the ``mode`` by its value
    (e.g. "int4_sym", "fp8_e4m3") and other keyword arguments."""
    import nncf
    import openvino as ov
    m = ov.Core().read_model(src)
    kw = dict(options)
    if "mode" in kw:
        kw["mode"] = (nncf.CompressWeightsMode if step == "compress_weights" else nncf.QuantizationMode)(kw["mode"])
    shown = "".join(f", {k}={v!r}" for k, v in options.items())
    if step == "compress_weights":
        out, how = nncf.compress_weights(m, **kw), f"nncf.compress_weights(model{shown})"
    else:
        rng = np.random.default_rng(1)
        names = {n for p in m.inputs for n in p.get_names()}
        base = {k: v for k, v in feeds(model)[0].items() if k in names}
        calib = [{k: (rng.standard_normal(v.shape).astype(v.dtype) if v.dtype.kind == "f"
                      else rng.integers(1, VOCAB, v.shape).astype(v.dtype) if k == "input_ids" else v)
                  for k, v in base.items()} for _ in range(8)]
        kind = nncf.ModelType.TRANSFORMER if model in ("bert", "vit", "wav2vec2", "swin", "deberta_v2") else None
        out = nncf.quantize(m, nncf.Dataset(calib), model_type=kind, subset_size=8, **kw)
        how = f"nncf.quantize(model, nncf.Dataset(8 random samples), model_type={kind}{shown})"
    ov.save_model(out, dest / "model.xml", compress_to_fp16=False)
    return how


def optimum_export(model: str, fmt: str, tmp: Path, dest: Path) -> str:
    """``optimum-cli export openvino`` of the random ``model`` with weights ``fmt``; the command."""
    src = tmp / "hf"
    p = subprocess.run([sys.executable, __file__, "--save-random", model, str(src)], capture_output=True, text=True)
    if p.returncode:
        raise SystemExit(f"the random model cannot be made (exit {p.returncode}):\n{p.stderr[-3000:]}")
    cmd = [sys.executable, "-m", "optimum.commands.optimum_cli", "export", "openvino", "--model", str(src),
           "--task", HF[model][3], "--weight-format", fmt, "--disable-convert-tokenizer", str(tmp / "ir")]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp, env=dict(os.environ, HF_HUB_OFFLINE="1"))
    if p.returncode != 0 or not (tmp / "ir" / "openvino_model.xml").exists():
        raise SystemExit(f"export failed (exit {p.returncode}):\n{p.stderr[-3000:]}")
    for ext in ("xml", "bin"):
        (tmp / "ir" / f"openvino_model.{ext}").rename(dest / f"model.{ext}")
    return "optimum-cli " + " ".join(cmd[cmd.index("export"):]).replace(str(tmp) + "/", "")


def recipe(case: str) -> str:
    """What the files of ``case`` depend on, hashed: its recipe, its model's config, the recipe of
    the case it starts from, and the exporters' versions. A cached case with another is rebuilt."""
    from importlib import metadata
    how, model = CASES[case], case.split("/")[0]
    parts = [case, how, HF.get(model) or DIFFUSERS.get(model), PROCESSORS.get(model),
             recipe(how[1]) if how[0] in ("compress_weights", "quantize") else "",
             [metadata.version(p) for p in ("torch", "transformers", "optimum-intel", "nncf", "openvino", "diffusers")]]
    return hashlib.sha256(json.dumps(parts, default=str, sort_keys=True).encode()).hexdigest()[:16]


def build(case: str, out: Path, force: bool = False) -> Path:
    """Make ``out/case`` (atomically: built next to it, then renamed) unless it is there, made by
    the same ``recipe``; its directory."""
    dest = out / case
    if (dest / "model.xml").exists() and not force and (dest / "build.json").exists() and \
            json.loads((dest / "build.json").read_text()).get("recipe") == recipe(case):
        return dest
    how = CASES[case]
    model = case.split("/")[0]
    if how[0] in ("compress_weights", "quantize"):
        build(how[1], out)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=case.replace("/", "-") + "-", dir=dest.parent) as tmp:
        ir = Path(tmp) / "case"
        ir.mkdir()
        t0 = time.perf_counter()
        if how[0] == "optimum":
            command = optimum_export(model, how[1], Path(tmp), ir)
        else:   # OpenVINO/nncf in a child process: fresh node numbering, memory returned at its end
            args = [how[0], str(out / how[1] / "model.xml"), model, json.dumps(how[2] if len(how) > 2 else {})] \
                if how[0] != "convert" else ["convert", model]
            p = subprocess.run([sys.executable, __file__, "--step", *args, str(ir)], capture_output=True, text=True,
                               cwd=tmp)
            if p.returncode:
                raise SystemExit(f"{how[0]} failed (exit {p.returncode}):\n{p.stderr[-3000:]}")
            command = p.stdout.strip().splitlines()[-1]
        (ir / "build.json").write_text(json.dumps(
            {"case": case, "seed": 0, "command": command, "seconds": round(time.perf_counter() - t0, 1),
             "recipe": recipe(case)}, indent=1) + "\n")
        if dest.exists():
            shutil.rmtree(dest)
        ir.rename(dest)
    return dest


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--save-random"]:
        save_random(argv[1], Path(argv[2]))
        return 0
    if argv[:1] == ["--step"]:
        dest = Path(argv[-1])
        print(convert_diffusers(argv[2], dest) if argv[1] == "convert" else
              nncf_step(argv[1], Path(argv[2]), argv[3], json.loads(argv[4]), dest))
        return 0
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("names", nargs="*", help="cases (default: all)")
    ap.add_argument("--force", action="store_true")
    args = ap.parse_args(argv)
    failed = 0
    for case in args.names or CASES:
        try:
            print(case, json.loads((build(case, args.out, args.force) / "build.json").read_text())["command"])
        except SystemExit as e:
            print(f"{case}: {e}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
