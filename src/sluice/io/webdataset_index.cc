#include "sluice/io/webdataset_index.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "sluice/core/error.h"

namespace sluice {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

std::vector<std::string_view> tokens(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

bool parse_count(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 18) return false;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Splits `text` at '\n' lazily.
class Lines {
 public:
  explicit Lines(std::string_view text) : text_(text) {}
  bool next(std::string_view* line) {
    if (pos_ > text_.size() || (pos_ == text_.size() && pos_ > 0 && text_.back() == '\n')) {
      return false;
    }
    size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    *line = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return true;
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

InvalidArgument bad_index(const std::string& path, int64_t line, const std::string& why) {
  return InvalidArgument(
      make_string("malformed WebDataset index '", path, "' line ", line, ": ", why));
}

}  // namespace

int64_t parse_wds_index_header(std::string_view first_line, const std::string& index_path) {
  std::vector<std::string_view> t = tokens(first_line);
  if (t.empty()) throw bad_index(index_path, 0, "no version signature found");
  if (t[0] != "v1.1" && t[0] != "v1.2") {
    throw bad_index(index_path, 0,
                    make_string("unsupported index version '", t[0], "' (v1.1 and v1.2 are)"));
  }
  int64_t count = 0;
  if (t.size() < 2 || !parse_count(t[1], &count)) {
    throw bad_index(index_path, 0, "no sample count found");
  }
  if (count <= 0) throw bad_index(index_path, 0, "sample count must be positive");
  return count;
}

WdsRawIndex parse_wds_index(std::string_view text, const std::string& index_path) {
  Lines lines(text);
  std::string_view line;
  if (!lines.next(&line)) throw bad_index(index_path, 0, "the file is empty");
  const bool with_names = tokens(line).size() > 0 && tokens(line)[0] == "v1.2";
  const int64_t count = parse_wds_index_header(line, index_path);
  const size_t per = with_names ? 4 : 3;
  WdsRawIndex out;
  out.samples.reserve(static_cast<size_t>(std::min<int64_t>(count, 1 << 20)));
  for (int64_t l = 1; l <= count; ++l) {
    if (!lines.next(&line)) {
      throw bad_index(index_path, l,
                      make_string("the index declares ", count, " samples but has only ", l - 1));
    }
    std::vector<std::string_view> t = tokens(line);
    if (t.empty()) throw bad_index(index_path, l, "no components listed for the sample");
    if (t.size() % per != 0) {
      throw bad_index(index_path, l,
                      with_names ? "every component must read '<ext> <offset> <size> <filename>'"
                                 : "every component must read '<ext> <offset> <size>'");
    }
    WdsRawSample s;
    s.first = static_cast<uint32_t>(out.components.size());
    s.line = l;
    for (size_t k = 0; k < t.size(); k += per) {
      WdsComponent c;
      c.ext = std::string(t[k]);
      if (!parse_count(t[k + 1], &c.offset) || !parse_count(t[k + 2], &c.size)) {
        throw bad_index(
            index_path, l,
            make_string("component '", t[k], "': offset and size must be integers >= 0"));
      }
      if (c.offset % kTarBlockSize != 0) {
        throw bad_index(index_path, l,
                        make_string("tar offset ", c.offset, " is not a multiple of ",
                                    kTarBlockSize, " (size written before offset?)"));
      }
      if (with_names) c.filename = std::string(t[k + 3]);
      out.components.push_back(std::move(c));
    }
    if (out.components.size() > UINT32_MAX) throw bad_index(index_path, l, "too many components");
    s.count = static_cast<uint32_t>(out.components.size() - s.first);
    out.samples.push_back(s);
  }
  return out;
}

std::pair<std::string, std::string> wds_split_name(const std::string& path) {
  size_t slash = path.rfind('/');
  size_t dot = path.find('.', slash == std::string::npos ? 0 : slash + 1);
  if (dot == std::string::npos) return {path, path};
  return {path.substr(0, dot), path.substr(dot + 1)};
}

WdsRawIndex wds_index_from_tar(const std::vector<TarMember>& members) {
  WdsRawIndex out;
  std::string last;
  bool started = false;
  uint32_t start = 0;
  auto close_sample = [&] {
    WdsRawSample s;
    s.first = start;
    s.count = static_cast<uint32_t>(out.components.size()) - start;
    s.line = static_cast<int64_t>(out.samples.size()) + 1;
    out.samples.push_back(s);
    start = static_cast<uint32_t>(out.components.size());
  };
  for (const TarMember& m : members) {
    if (!m.is_file()) continue;
    auto [base, ext] = wds_split_name(m.name);
    if (!started) {
      last = base;  // the first file opens the first sample, even one that is left out below
      started = true;
    }
    if (base.empty()) continue;
    if (base != last) {
      close_sample();
      last = base;
    }
    out.components.push_back({std::move(ext), m.name, m.data_offset, m.size});
  }
  close_sample();
  return out;
}

std::string format_wds_index(const WdsRawIndex& index) {
  std::string out = make_string("v1.2 ", index.samples.size(), "\n");
  for (const WdsRawSample& s : index.samples) {
    for (uint32_t k = 0; k < s.count; ++k) {
      const WdsComponent& c = index.components[s.first + k];
      out += make_string(k ? " " : "", c.ext, " ", c.offset, " ", c.size, " ", c.filename);
    }
    out += "\n";
  }
  return out;
}

WdsMissing parse_wds_missing(const std::string& policy) {
  std::string p = lower(policy);
  if (p.empty() || p == "empty") return WdsMissing::kEmpty;
  if (p == "skip") return WdsMissing::kSkip;
  if (p == "error") return WdsMissing::kError;
  throw InvalidArgument(make_string("invalid missing_component_behavior '", policy,
                                    "': possible values are skip, error, empty"));
}

WdsOutputs make_wds_outputs(const std::vector<std::string>& ext, bool case_sensitive,
                            WdsMissing missing) {
  WdsOutputs out;
  out.case_sensitive = case_sensitive;
  out.missing = missing;
  for (const std::string& spec : ext) {
    std::vector<std::string> group;
    size_t pos = 0;
    while (pos < spec.size()) {  // ';'-separated, as getline splits: no empty last piece
      size_t end = spec.find(';', pos);
      if (end == std::string::npos) end = spec.size();
      std::string e = spec.substr(pos, end - pos);
      if (!case_sensitive) e = lower(e);
      if (std::find(group.begin(), group.end(), e) == group.end()) group.push_back(e);
      pos = end + 1;
    }
    out.ext_groups.push_back(std::move(group));
  }
  return out;
}

WdsShardSamples match_wds_samples(WdsRawIndex raw, const WdsOutputs& outputs,
                                  const std::string& source) {
  const int n_out = static_cast<int>(outputs.ext_groups.size());
  std::unordered_map<std::string, std::vector<int>> by_ext;
  for (int o = 0; o < n_out; ++o) {
    for (const std::string& e : outputs.ext_groups[o]) by_ext[e].push_back(o);
  }
  WdsShardSamples out;
  out.num_outputs = n_out;
  std::vector<int32_t> slot(n_out);
  for (const WdsRawSample& s : raw.samples) {
    std::fill(slot.begin(), slot.end(), -1);
    const size_t kept_before = out.components.size();
    for (uint32_t k = 0; k < s.count; ++k) {
      WdsComponent& c = raw.components[s.first + k];
      auto it = by_ext.find(outputs.case_sensitive ? c.ext : lower(c.ext));
      if (it == by_ext.end()) continue;
      bool used = false;
      for (int o : it->second) {
        if (slot[o] >= 0) continue;  // the first matching component wins
        slot[o] = static_cast<int32_t>(out.components.size());
        used = true;
      }
      if (used) out.components.push_back(std::move(c));
    }
    auto missing = std::find(slot.begin(), slot.end(), -1);
    if (missing != slot.end()) {
      if (outputs.missing == WdsMissing::kSkip) {
        out.components.resize(kept_before);
        continue;
      }
      if (outputs.missing == WdsMissing::kError) {
        const auto& g = outputs.ext_groups[missing - slot.begin()];
        std::string exts;
        for (const auto& e : g) exts += (exts.empty() ? "" : ";") + e;
        throw InvalidArgument(make_string(
            "'", source, "' sample ", s.line, ": no component for output ", missing - slot.begin(),
            " (ext '", exts, "'; missing_component_behavior='error')"));
      }
    }
    out.slots.insert(out.slots.end(), slot.begin(), slot.end());
    out.lines.push_back(s.line);
  }
  return out;
}

}  // namespace sluice
