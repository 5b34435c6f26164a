#include "sluice/ops/decoders/decoder_args.h"

#include <cmath>

#include "sluice/ops/decoders/decoder_policy.h"

namespace sluice {
namespace {

codecs::OutputColor parse_color(const std::string& s) {
  if (s == "RGB") return codecs::OutputColor::kRGB;
  if (s == "BGR") return codecs::OutputColor::kBGR;
  if (s == "GRAY") return codecs::OutputColor::kGray;
  if (s == "YCbCr") return codecs::OutputColor::kYCbCr;
  return codecs::OutputColor::kAnyData;
}

}  // namespace

OpSchema decoder_schema(const std::string& name, const std::string& doc) {
  OpSchema s(name);
  s.doc(doc)
      .num_inputs(1, 1)
      .input_doc("data",
                 "Encoded images (JPEG, PNG, BMP, PNM, TIFF, WebP, JPEG 2000), e.g. from "
                 "readers.file.")
      .devices({OpDevice::kCPU, OpDevice::kMixed})
      .enum_arg("output_type", {"RGB", "BGR", "GRAY", "YCbCr", "ANY_DATA"}, "RGB",
                "Colour space of the output; ANY_DATA keeps the file's channels.")
      .arg("dtype", ArgType::kDType, std::string("UINT8"),
           "Output type: UINT8, UINT16 (8-bit data scaled by 257) or FLOAT ([0, 1], at the "
           "file's precision).")
      .arg("adjust_orientation", ArgType::kBool, true, "Apply the EXIF orientation.")
      .arg("max_pixels", ArgType::kInt, codecs::kDefaultMaxPixels,
           "Images with more pixels (from the header) are refused before decoding; 0: no limit.")
      .enum_arg("on_error", {"raise", "skip"}, "raise",
                "'raise': a bad image is a DecodeError naming the file. 'skip': it is replaced "
                "by the next good image of the batch (and its label too); the count appears in "
                "executor_statistics() as skipped_samples, each skipped file once (with its "
                "error) as skipped_files, and each file once in a Python warning.")
      .arg("jpeg_fancy_upsampling", ArgType::kBool, false,
           "Mixed decoder: interpolate chroma like the CPU decoder (libjpeg's fancy upsampling).")
      .arg("use_fast_idct", ArgType::kBool, false,
           "Accepted for compatibility; Sluice always decodes with the exact integer IDCT.")
      .arg("hw_decoder_load", ArgType::kFloat, nvjpeg::policy::kHwDecoderLoad,
           make_string("Mixed decoder: share of each batch for the hardware JPEG decoder. Given: "
                       "fixed, as in DALI. Not given: ",
                       nvjpeg::policy::kHwDecoderLoad,
                       "; with rest_decoder='cpu' it starts there and follows the share at which "
                       "the hardware decoder and the rest of the batch take the same time on this "
                       "machine."))
      .enum_arg("rest_decoder", {"auto", "nvjpeg", "cpu"}, "auto",
                make_string("Mixed decoder: what decodes the share the hardware decoder does "
                            "not take. 'nvjpeg': nvJPEG's hybrid path (CPU Huffman, GPU IDCT), as "
                            "DALI. 'cpu': the CPU decoder on the pipeline's threads, then a copy "
                            "up; no CUDA call per image. 'auto': 'cpu' from ",
                            kRestDecoderCpuMinThreads,
                            " threads, where it is the faster, else 'nvjpeg'."))
      .arg("hybrid_huffman_threshold", ArgType::kInt, int64_t{1000000},
           "Mixed decoder: images above this many pixels decode their Huffman data on the GPU.")
      .arg("device_memory_padding", ArgType::kInt, int64_t{16} << 20,
           "Mixed decoder: extra device memory per nvJPEG buffer, to avoid regrowing.")
      .arg("host_memory_padding", ArgType::kInt, int64_t{8} << 20,
           "Mixed decoder: extra pinned memory per nvJPEG buffer.")
      .arg("device_memory_padding_jpeg2k", ArgType::kInt, int64_t{0}, "Accepted for compatibility.")
      .arg("host_memory_padding_jpeg2k", ArgType::kInt, int64_t{0}, "Accepted for compatibility.")
      .arg("preallocate_width_hint", ArgType::kInt, int64_t{0},
           "Mixed decoder: expected maximum image width, to preallocate hardware decoder memory.")
      .arg("preallocate_height_hint", ArgType::kInt, int64_t{0},
           "Mixed decoder: expected maximum image height.")
      .arg("affine", ArgType::kBool, true, "Accepted for compatibility.")
      .arg("split_stages", ArgType::kBool, false, "Accepted for compatibility.")
      .arg("memory_stats", ArgType::kBool, false, "Accepted for compatibility.");
  return s;
}

OpSchema random_crop_args(OpSchema s) {
  s.arg("random_area", ArgType::kFloatList, std::vector<double>{0.08, 1.0},
        "Range of the crop's area as a fraction of the image's.")
      .arg("random_aspect_ratio", ArgType::kFloatList, std::vector<double>{3.0 / 4.0, 4.0 / 3.0},
           "Range of the crop's aspect ratio (width / height), drawn log-uniformly.")
      .arg("num_attempts", ArgType::kInt, int64_t{10},
           "Tries before falling back to a central crop (torchvision's rule).");
  return s;
}

OpSchema fixed_crop_args(OpSchema s) {
  s.optional_arg("crop", ArgType::kFloatList, "Crop size (height, width).", true)
      .optional_arg("crop_h", ArgType::kFloat, "Crop height.", true)
      .optional_arg("crop_w", ArgType::kFloat, "Crop width.", true)
      .arg("crop_pos_x", ArgType::kFloat, 0.5, "Horizontal position of the crop in [0, 1].", true)
      .arg("crop_pos_y", ArgType::kFloat, 0.5, "Vertical position of the crop in [0, 1].", true);
  return s;
}

DecoderArgs parse_decoder_args(const OpSpec& spec) {
  DecoderArgs a;
  a.color = parse_color(spec.arg<std::string>("output_type"));
  a.dtype = parse_dtype(spec.arg<std::string>("dtype"));
  SLUICE_CHECK(a.dtype == DType::kUInt8 || a.dtype == DType::kUInt16 || a.dtype == DType::kFloat32,
               InvalidArgument, spec.describe(), ": dtype must be UINT8, UINT16 or FLOAT, got ",
               dtype_name(a.dtype));
  a.adjust_orientation = spec.arg<bool>("adjust_orientation");
  a.max_pixels = spec.arg<int64_t>("max_pixels");
  a.skip_bad = spec.arg<std::string>("on_error") == "skip";
  if (spec.type == "decoders.image_random_crop") {
    a.crop = DecoderCrop::kRandom;
    auto area = spec.arg<std::vector<double>>("random_area");
    auto ratio = spec.arg<std::vector<double>>("random_aspect_ratio");
    SLUICE_CHECK(area.size() == 2 && ratio.size() == 2, InvalidArgument, spec.describe(),
                 ": random_area and random_aspect_ratio take two values");
    a.random = {area[0], area[1], ratio[0], ratio[1], spec.arg<int>("num_attempts")};
    a.random.validate();
  } else if (spec.type == "decoders.image_crop") {
    a.crop = DecoderCrop::kFixed;
    SLUICE_CHECK(spec.has_arg("crop") || spec.arg_inputs.count("crop") || spec.has_arg("crop_h") ||
                     spec.arg_inputs.count("crop_h"),
                 InvalidArgument, spec.describe(), ": give crop=(h, w) or crop_h and crop_w");
  } else if (spec.type == "decoders.image_slice") {
    a.crop = DecoderCrop::kSlice;
  }
  return a;
}

std::optional<CropWindow> decoder_window(const DecoderArgs& args, const Workspace& ws, int sample,
                                         int64_t height, int64_t width) {
  const OpSpec& spec = ws.spec();
  switch (args.crop) {
    case DecoderCrop::kNone:
      return std::nullopt;
    case DecoderCrop::kRandom: {
      SampleRng rng = ws.rng(sample);
      return random_resized_crop_window(height, width, args.random, rng);
    }
    case DecoderCrop::kFixed: {
      double ch, cw;
      if (spec.has_arg("crop") || ws.arg_input("crop")) {
        auto c = ws.arg_list<double>("crop", sample);
        SLUICE_CHECK(c.size() == 2, InvalidArgument, "crop must be (height, width)");
        ch = c[0];
        cw = c[1];
      } else {
        ch = ws.arg<double>("crop_h", sample);
        cw = ws.arg<double>("crop_w", sample);
      }
      CropWindow w = fixed_crop_window(height, width, std::llround(ch), std::llround(cw),
                                       ws.arg<float>("crop_pos_y", sample),
                                       ws.arg<float>("crop_pos_x", sample));
      return apply_out_of_bounds_policy(w, height, width, OutOfBoundsPolicy::kError);
    }
    case DecoderCrop::kSlice: {
      SliceArgs s;
      std::vector<double> start, shape;
      bool rel_start = true, rel_shape = true;
      if (ws.num_inputs() >= 3) {
        start = tensor_values<double>(ws.input(1), sample);
        shape = tensor_values<double>(ws.input(2), sample);
        rel_start = spec.arg<bool>("normalized_anchor");
        rel_shape = spec.arg<bool>("normalized_shape");
      } else {
        bool has_rel = spec.has_arg("rel_start") || ws.arg_input("rel_start");
        start = has_rel ? ws.arg_list<double>("rel_start", sample)
                        : (spec.has_arg("start") || ws.arg_input("start")
                               ? ws.arg_list<double>("start", sample)
                               : std::vector<double>{0, 0});
        rel_start = has_rel || !(spec.has_arg("start") || ws.arg_input("start"));
        bool has_rel_shape = spec.has_arg("rel_shape") || ws.arg_input("rel_shape");
        shape = has_rel_shape ? ws.arg_list<double>("rel_shape", sample)
                              : (spec.has_arg("shape") || ws.arg_input("shape")
                                     ? ws.arg_list<double>("shape", sample)
                                     : std::vector<double>{1, 1});
        rel_shape = has_rel_shape || !(spec.has_arg("shape") || ws.arg_input("shape"));
      }
      SLUICE_CHECK(start.size() == 2 && shape.size() == 2, InvalidArgument,
                   "slice start and shape take two values (x, y) and (width, height)");
      s.anchor_x = start[0];
      s.anchor_y = start[1];
      s.shape_w = shape[0];
      s.shape_h = shape[1];
      s.relative_anchor = rel_start;
      s.relative_shape = rel_shape;
      return apply_out_of_bounds_policy(slice_window(height, width, s), height, width,
                                        OutOfBoundsPolicy::kError);
    }
  }
  return std::nullopt;
}

}  // namespace sluice
