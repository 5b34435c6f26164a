// readers.sequence: sequences of frames from folders of extracted frames
// (file_root/<stream>/<frame files>), decoded with the CPU image codecs into FHWC uint8 samples.

#include <glob.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>

#include "sluice/codecs/image_decoder.h"
#include "sluice/codecs/image_info.h"
#include "sluice/graph/schema_registry.h"
#include "sluice/io/file_dataset.h"
#include "sluice/io/read_file.h"
#include "sluice/ops/readers/reader.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(add_reader_args(
    OpSchema("readers.sequence")
        .doc("Reads sequences of frames from `file_root`, whose sub-folders are streams of "
             "extracted frames (image files, in byte-wise name order; hidden files and folders "
             "are ignored, as by glob). Each sample is `sequence_length` frames, `stride` apart; "
             "consecutive samples of a stream start `step` frames apart; only complete sequences "
             "are read and none crosses a stream. Output: uint8 frames, layout FHWC, decoded "
             "with the CPU image decoders.")
        .num_inputs(0, 0)
        .num_outputs(1)
        .output_names({"frames"})
        .devices({OpDevice::kCPU})
        .required_arg("file_root", ArgType::kString, "Folder of the streams (one per folder).")
        .required_arg("sequence_length", ArgType::kInt, "Frames per sample.")
        .arg("step", ArgType::kInt, int64_t{1}, "Distance between the first frames of samples.")
        .arg("stride", ArgType::kInt, int64_t{1}, "Distance between the frames of a sample.")
        .enum_arg("image_type", {"RGB", "BGR", "GRAY", "YCbCr", "ANY_DATA"}, "RGB",
                  "Colour space of the frames (YCbCr is refused, as in DALI).")
        .alias("SequenceReader"),
    false));

bool has_image_extension(const std::string& path) {
  const size_t dot = path.rfind('.');
  const size_t slash = path.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return false;
  std::string ext = path.substr(dot + 1);
  for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (const std::string& f : default_file_filters()) {
    if (f.substr(2) == ext) return true;  // the filters are "*.<ext>"
  }
  return false;
}

// The frame files of each stream folder, in byte-wise order of their paths.
std::vector<std::vector<std::string>> list_streams(const std::string& root) {
  glob_t g;
  const std::string pattern = root + "/*/*";
  const int rc = ::glob(pattern.c_str(), 0, nullptr, &g);
  if (rc != 0) {
    if (rc != GLOB_NOMATCH) ::globfree(&g);
    throw InvalidArgument(
        make_string("Glob for pattern: \"", pattern, "\" failed. Verify the file_root argument"));
  }
  std::vector<std::string> files;
  for (size_t i = 0; i < g.gl_pathc; ++i) {
    std::string f = g.gl_pathv[i];
    struct stat st;
    if (has_image_extension(f) && ::stat(f.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      files.push_back(std::move(f));
    }
  }
  ::globfree(&g);
  std::sort(files.begin(), files.end());
  std::vector<std::vector<std::string>> streams;
  std::map<std::string, size_t> index;
  for (std::string& f : files) {
    std::string parent = f.substr(0, f.rfind('/'));
    auto [it, added] = index.emplace(parent, streams.size());
    if (added) streams.emplace_back();
    streams[it->second].push_back(std::move(f));
  }
  return streams;
}

class SequenceReader : public Reader {
 public:
  using Reader::Reader;

  void setup(const OpContext& ctx) override {
    const int64_t length = spec_.arg<int64_t>("sequence_length");
    const int64_t step = spec_.arg<int64_t>("step");
    const int64_t stride = spec_.arg<int64_t>("stride");
    SLUICE_CHECK(length > 0, InvalidArgument, "Sequence length must be positive");
    SLUICE_CHECK(step > 0 && stride > 0, InvalidArgument, "step and stride must be positive, got ",
                 step, " and ", stride);
    const std::string type = spec_.arg<std::string>("image_type");
    SLUICE_CHECK(type != "YCbCr", InvalidArgument,
                 "Format not supported. Only RGB, BGR, GRAY or ANY_DATA are supported on this "
                 "operator");
    params_.color = type == "RGB"    ? codecs::OutputColor::kRGB
                    : type == "BGR"  ? codecs::OutputColor::kBGR
                    : type == "GRAY" ? codecs::OutputColor::kGray
                                     : codecs::OutputColor::kAnyData;
    const std::string root = spec_.arg<std::string>("file_root");
    for (const auto& s : list_streams(root)) {
      const auto n = static_cast<int64_t>(s.size());
      for (int64_t i = 0; i + (length - 1) * stride < n; i += step) {
        std::vector<std::string> seq;
        for (int64_t k = 0; k < length; ++k) seq.push_back(s[i + k * stride]);
        sequences_.push_back(std::move(seq));
      }
    }
    SLUICE_CHECK(!sequences_.empty(), InvalidArgument, "no complete sequence of ", length,
                 " frames (stride ", stride, ") in the stream folders of file_root '", root, "'");
    plan(ctx, static_cast<int64_t>(sequences_.size()));
    for (int t = 0; t < std::max(ctx.num_slots, 1); ++t) {
      scratch_.push_back(std::make_unique<codecs::DecoderScratch>());
    }
  }

  void run(Workspace& ws) override {
    const int n = ws.batch_size();
    frames_.resize(n);
    infos_.resize(n);
    std::vector<Shape> shapes(n);
    ws.for_each_sample([&](int i, int) {
      const auto& seq = sequences_[ws.batch().samples[i].id];
      frames_[i].resize(seq.size());
      infos_[i].resize(seq.size());
      Shape first;
      for (size_t k = 0; k < seq.size(); ++k) {
        read_file(seq[k], frames_[i][k]);
        try {
          infos_[i][k] = codecs::peek_image(frames_[i][k].data(), frames_[i][k].size());
          Shape s = codecs::decoded_shape(infos_[i][k], params_);
          if (k == 0) first = s;
          SLUICE_CHECK(s == first, InvalidArgument, "frames do not match in dimensions: '", seq[0],
                       "' is ", shape_to_string(first), ", this one ", shape_to_string(s));
        } catch (const Error&) {
          rethrow_with_context(std::current_exception(), "frame '" + seq[k] + "'");
        }
      }
      shapes[i] = {static_cast<int64_t>(seq.size()), first[0], first[1], first[2]};
    });
    TensorList& out = ws.output(0);
    out.resize(shapes, DType::kUInt8);
    out.set_layout("FHWC");
    ws.for_each_sample([&](int i, int thread) {
      const auto& seq = sequences_[ws.batch().samples[i].id];
      const size_t frame_bytes = static_cast<size_t>(volume(shapes[i]) / shapes[i][0]);
      auto* dst = static_cast<uint8_t*>(out.raw_sample(i));
      for (size_t k = 0; k < seq.size(); ++k) {
        try {
          codecs::decode_image(frames_[i][k].data(), frames_[i][k].size(), infos_[i][k], params_,
                               *scratch_[thread], dst + k * frame_bytes);
        } catch (const Error&) {
          rethrow_with_context(std::current_exception(), "frame '" + seq[k] + "'");
        }
      }
    });
    if (read_ahead()) {
      for (int64_t index : next_batch_indices()) sluice::read_ahead(sequences_[index]);
    }
  }

 private:
  std::string sample_source(int64_t index) const override { return sequences_[index][0]; }

  codecs::DecodeParams params_;
  std::vector<std::vector<std::string>> sequences_;
  std::vector<std::vector<std::vector<uint8_t>>> frames_;
  std::vector<std::vector<codecs::ImageInfo>> infos_;
  std::vector<std::unique_ptr<codecs::DecoderScratch>> scratch_;
};

SLUICE_REGISTER_OPERATOR("readers.sequence", OpDevice::kCPU, SequenceReader);

}  // namespace
}  // namespace sluice
