#pragma once
// WebDataset shards as samples: DALI's index format (wds2idx, versions v1.1 and v1.2), the same
// grouping of tar members when there is no index, and the matching of a sample's components to
// the reader's outputs (`ext` groups, missing_component_behavior).
//
// Index text: a first line "v1.2 <count>", then <count> lines, one per sample, each a list of
// components "<ext> <offset> <size> <filename>" (v1.1: without filename); offsets point at the
// data (past the 512-byte header) and are multiples of 512. Lines after the count are ignored.
// Errors are InvalidArgument naming the index file and line.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/io/tar_archive.h"

namespace sluice {

struct WdsComponent {
  std::string ext;       // everything after the first '.' of the file's base name
  std::string filename;  // the member's path in the tar (empty for v1.1 indexes)
  int64_t offset = 0;    // of the data in the tar
  int64_t size = 0;
};

// One sample: components [first, first + count) of its index; `line` is the index line (1-based
// after the header), 0 where the sample comes from scanning the tar.
struct WdsRawSample {
  uint32_t first = 0;
  uint32_t count = 0;
  int64_t line = 0;
};

struct WdsRawIndex {
  std::vector<WdsComponent> components;
  std::vector<WdsRawSample> samples;
};

// The sample count of an index's first line (InvalidArgument for a bad version or count).
int64_t parse_wds_index_header(std::string_view first_line, const std::string& index_path);
// The whole index.
WdsRawIndex parse_wds_index(std::string_view text, const std::string& index_path);
// DALI's reading of a tar without an index: regular members, consecutive ones with the same base
// name form a sample; members whose base name is empty are left out.
WdsRawIndex wds_index_from_tar(const std::vector<TarMember>& members);
// The v1.2 text of an index (what wds2idx writes).
std::string format_wds_index(const WdsRawIndex& index);
// Splits "dir/name.a.b" into ("dir/name", "a.b"); without a dot the extension is the whole path,
// as DALI splits it.
std::pair<std::string, std::string> wds_split_name(const std::string& path);

enum class WdsMissing { kEmpty, kSkip, kError };
WdsMissing parse_wds_missing(const std::string& policy);  // "", "empty", "skip", "error"

// The reader's outputs: output i takes the first component whose extension is in ext_groups[i].
struct WdsOutputs {
  std::vector<std::vector<std::string>> ext_groups;  // lower-cased unless case_sensitive
  bool case_sensitive = true;
  WdsMissing missing = WdsMissing::kEmpty;
};
// Parses DALI's `ext` strings ("jpg;png" = either) into groups.
WdsOutputs make_wds_outputs(const std::vector<std::string>& ext, bool case_sensitive,
                            WdsMissing missing);

// A shard's samples after matching: component(s, o) is output o's component of sample s, or null
// where the sample has none (an empty output).
struct WdsShardSamples {
  std::vector<WdsComponent> components;
  std::vector<int32_t> slots;  // samples x outputs, index into components or -1
  std::vector<int64_t> lines;
  int num_outputs = 0;

  int64_t size() const { return static_cast<int64_t>(lines.size()); }
  const WdsComponent* component(int64_t s, int o) const {
    int32_t k = slots[static_cast<size_t>(s * num_outputs + o)];
    return k < 0 ? nullptr : &components[static_cast<size_t>(k)];
  }
};

// Matches every sample; samples that miss an output are kept with it empty, left out, or raise
// InvalidArgument naming `source` (the index file or tar) and the line, as `outputs.missing` says.
WdsShardSamples match_wds_samples(WdsRawIndex raw, const WdsOutputs& outputs,
                                  const std::string& source);

}  // namespace sluice
