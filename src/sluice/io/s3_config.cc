// The parts of the S3 client that need no network: URIs, configuration from the AWS environment
// and profile files, and the ListObjectsV2 page parser.

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>

#include "sluice/core/env.h"
#include "sluice/core/error.h"
#include "sluice/core/text.h"
#include "sluice/io/s3_client.h"

namespace sluice {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

// The `key = value` lines of section `section` of an INI file (AWS profile files); empty when the
// file or the section is missing.
std::map<std::string, std::string> ini_section(const std::string& path,
                                               const std::string& section) {
  std::map<std::string, std::string> out;
  std::ifstream in(path);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    std::string_view l = trim(line);
    if (l.empty() || l[0] == '#' || l[0] == ';') continue;
    if (l.front() == '[' && l.back() == ']') {
      inside = trim(l.substr(1, l.size() - 2)) == section;
      continue;
    }
    size_t eq = l.find('=');
    if (inside && eq != std::string_view::npos) {
      out[std::string(trim(l.substr(0, eq)))] = std::string(trim(l.substr(eq + 1)));
    }
  }
  return out;
}

std::string decode_entities(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    size_t semi = s.find(';', i);
    if (semi == std::string_view::npos) throw IOError("malformed S3 listing: bad XML entity");
    std::string_view e = s.substr(i + 1, semi - i - 1);
    if (e == "amp")
      out += '&';
    else if (e == "lt")
      out += '<';
    else if (e == "gt")
      out += '>';
    else if (e == "quot")
      out += '"';
    else if (e == "apos")
      out += '\'';
    else if (e.size() > 1 && e[0] == '#') {
      unsigned cp = 0;
      bool hex = e[1] == 'x' || e[1] == 'X';
      std::string_view digits = e.substr(hex ? 2 : 1);
      auto [p, ec] =
          std::from_chars(digits.data(), digits.data() + digits.size(), cp, hex ? 16 : 10);
      if (ec != std::errc() || p != digits.data() + digits.size() || cp > 0x10FFFF || cp == 0) {
        throw IOError(make_string("malformed S3 listing: bad XML character reference '&", e, ";'"));
      }
      if (cp < 0x80) {
        out += static_cast<char>(cp);
      } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      }
    } else {
      throw IOError(make_string("malformed S3 listing: unknown XML entity '&", e, ";'"));
    }
    i = semi;
  }
  return out;
}

// The text of the first <tag>...</tag> in `xml` from `from`, or nullopt; `end` receives the
// position after the closing tag.
std::optional<std::string_view> element(std::string_view xml, std::string_view tag, size_t from,
                                        size_t* end = nullptr) {
  std::string open = make_string("<", tag, ">");
  std::string close = make_string("</", tag, ">");
  size_t b = xml.find(open, from);
  if (b == std::string_view::npos) return std::nullopt;
  b += open.size();
  size_t e = xml.find(close, b);
  if (e == std::string_view::npos) {
    throw IOError(make_string("malformed S3 listing: <", tag, "> is not closed"));
  }
  if (end) *end = e + close.size();
  return xml.substr(b, e - b);
}

}  // namespace

bool is_s3_uri(std::string_view path) {
  return path.substr(0, 5) == "s3://";
}

S3Uri S3Uri::parse(std::string_view uri) {
  SLUICE_CHECK(is_s3_uri(uri), InvalidArgument, "'", uri, "' is not an s3:// URI");
  std::string_view rest = uri.substr(5);
  size_t slash = rest.find('/');
  S3Uri u;
  u.bucket = std::string(rest.substr(0, slash));
  if (slash != std::string_view::npos) u.key = std::string(rest.substr(slash + 1));
  SLUICE_CHECK(!u.bucket.empty(), InvalidArgument, "'", uri, "' names no bucket (s3://bucket/key)");
  return u;
}

S3Config S3Config::from_environment() {
  S3Config c;
  std::string home = env("HOME");
  std::string profile = env("AWS_PROFILE");
  if (profile.empty()) profile = "default";
  std::string cred_file = env("AWS_SHARED_CREDENTIALS_FILE");
  if (cred_file.empty() && !home.empty()) cred_file = home + "/.aws/credentials";
  std::string config_file = env("AWS_CONFIG_FILE");
  if (config_file.empty() && !home.empty()) config_file = home + "/.aws/config";
  auto creds = ini_section(cred_file, profile);
  auto conf = ini_section(config_file, profile == "default" ? "default" : "profile " + profile);

  auto pick = [](std::string from_env, std::map<std::string, std::string>& m, const char* key) {
    if (!from_env.empty()) return from_env;
    auto it = m.find(key);
    return it == m.end() ? std::string() : it->second;
  };
  c.access_key = env("AWS_ACCESS_KEY_ID");
  c.secret_key = env("AWS_SECRET_ACCESS_KEY");
  c.session_token = env("AWS_SESSION_TOKEN");
  if (c.access_key.empty()) {  // keys come in pairs: take both from one source
    c.access_key = pick("", creds, "aws_access_key_id");
    c.secret_key = pick("", creds, "aws_secret_access_key");
    c.session_token = pick("", creds, "aws_session_token");
  }
  std::string region = env("AWS_REGION");
  if (region.empty()) region = env("AWS_DEFAULT_REGION");
  region = pick(region, conf, "region");
  if (!region.empty()) c.region = region;
  std::string endpoint = env("AWS_ENDPOINT_URL_S3");
  if (endpoint.empty()) endpoint = env("AWS_ENDPOINT_URL");
  c.endpoint = pick(endpoint, conf, "endpoint_url");
  while (!c.endpoint.empty() && c.endpoint.back() == '/') c.endpoint.pop_back();
  c.max_attempts = env_int("SLUICE_S3_MAX_ATTEMPTS", c.max_attempts, 1, 100);
  c.request_timeout_ms = static_cast<long>(
      1000 * env_double("SLUICE_S3_TIMEOUT_S", c.request_timeout_ms / 1000.0, 0.1, 86400.0));
  c.connect_timeout_ms = std::min(c.connect_timeout_ms, c.request_timeout_ms);
  return c;
}

std::string parse_list_page(std::string_view xml,
                            const std::function<void(std::string_view, uint64_t)>& on_key) {
  SLUICE_CHECK(xml.find("<ListBucketResult") != std::string_view::npos, IOError,
               "malformed S3 listing: no <ListBucketResult> in the answer");
  size_t pos = 0;
  size_t end = 0;
  while (auto contents = element(xml, "Contents", pos, &end)) {
    pos = end;
    auto key = element(*contents, "Key", 0);
    SLUICE_CHECK(key.has_value(), IOError, "malformed S3 listing: <Contents> without <Key>");
    uint64_t size = 0;
    if (auto s = element(*contents, "Size", 0)) {
      std::from_chars(s->data(), s->data() + s->size(), size);
    }
    on_key(decode_entities(*key), size);
  }
  auto truncated = element(xml, "IsTruncated", 0);
  if (!truncated || trim(*truncated) != "true") return {};
  auto token = element(xml, "NextContinuationToken", 0);
  SLUICE_CHECK(token && !token->empty(), IOError,
               "malformed S3 listing: truncated page without NextContinuationToken");
  return decode_entities(*token);
}

}  // namespace sluice
