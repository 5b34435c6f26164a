// One S3 request on a libcurl easy handle: set-up and classification of the answer.

#include "sluice/io/s3_request.h"

#ifdef SLUICE_HAS_CURL

#include <algorithm>
#include <cctype>

#include "sluice/core/error.h"

namespace sluice::s3_detail {
namespace {

// SHA-256 of the empty payload: GET and LIST carry none; S3 wants it in x-amz-content-sha256.
constexpr const char* kEmptySha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

// Text between <tag> and </tag> in an error answer, or "".
std::string xml_field(const std::string& body, const char* tag) {
  std::string open = make_string("<", tag, ">");
  size_t b = body.find(open);
  if (b == std::string::npos) return {};
  b += open.size();
  size_t e = body.find("</", b);
  return e == std::string::npos ? std::string() : body.substr(b, e - b);
}

bool retryable_status(long status) {
  return status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

bool retryable_curl(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR:
      return true;
    default:
      return false;
  }
}

// Notes the object's size from a Content-Range header.
size_t header_cb(char* p, size_t, size_t n, void* user) {
  std::string_view line(p, n);
  constexpr std::string_view kName = "content-range:";
  if (line.size() > kName.size()) {
    bool match = true;
    for (size_t i = 0; i < kName.size() && match; ++i) {
      match = std::tolower(static_cast<unsigned char>(line[i])) == kName[i];
    }
    size_t slash = line.find('/');
    if (match && slash != std::string_view::npos) {
      int64_t size = 0;
      size_t i = slash + 1;
      for (; i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])); ++i) {
        size = size * 10 + (line[i] - '0');
      }
      if (i > slash + 1) *static_cast<int64_t*>(user) = size;
    }
  }
  return n;
}

int progress_cb(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const std::atomic<bool>*>(user)->load() ? 1 : 0;
}

}  // namespace

std::string uri_encode(std::string_view s, bool keep_slash) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' ||
        (keep_slash && c == '/')) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string object_url(const S3Config& config, const std::string& bucket, const std::string& key) {
  if (config.endpoint.empty()) {
    return make_string("https://", bucket, ".s3.", config.region, ".amazonaws.com/",
                       uri_encode(key, true));
  }
  return make_string(config.endpoint, "/", bucket, "/", uri_encode(key, true));
}

void check_object(const S3Uri& uri) {
  SLUICE_CHECK(!uri.key.empty() && uri.key.back() != '/', InvalidArgument, "cannot read '",
               uri.str(), "': names a prefix, not an object");
}

Request::Request(std::string what, std::string url, std::vector<uint8_t>* out, size_t max_size,
                 uint64_t offset, int64_t length, bool head, const std::atomic<bool>* cancel)
    : what_(std::move(what)),
      url_(std::move(url)),
      out_(out),
      max_size_(max_size),
      offset_(offset),
      length_(length),
      head_(head),
      cancel_(cancel) {}

Request::~Request() {
  curl_slist_free_all(headers_);
}

size_t Request::write_cb(char* p, size_t, size_t n, void* user) {
  auto* s = static_cast<Sink*>(user);
  Request& r = *s->request;
  if (s->status == 0) curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &s->status);
  if (r.out_ && s->status / 100 == 2) {
    curl_off_t length = -1;
    if (r.out_->empty() &&
        curl_easy_getinfo(s->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) == CURLE_OK &&
        length > 0) {
      // One allocation, not a doubling per chunk (the prefetcher copies every body on one thread).
      r.out_->reserve(std::min(static_cast<size_t>(length), r.max_size_));
    }
    if (r.out_->size() + n > r.max_size_) {
      s->too_large = true;
      return 0;  // aborts the transfer (CURLE_WRITE_ERROR)
    }
    r.out_->insert(r.out_->end(), p, p + n);
  } else if (r.response_.body.size() < (size_t{64} << 20)) {
    r.response_.body.append(p, n);
  }
  return n;
}

void Request::prepare(CURL* c, const S3Config& config) {
  ++attempt_;
  connection_ok_ = true;
  curl_easy_reset(c);
  response_ = Response{};
  sink_ = Sink{this, c, false, 0};
  if (out_) out_->clear();
  curl_slist_free_all(headers_);
  headers_ =
      curl_slist_append(nullptr, make_string("x-amz-content-sha256: ", kEmptySha256).c_str());
  if (!config.session_token.empty()) {
    headers_ = curl_slist_append(
        headers_, make_string("x-amz-security-token: ", config.session_token).c_str());
  }
  if (length_ >= 0 || offset_ > 0) {
    range_ =
        length_ >= 0 ? make_string(offset_, "-", offset_ + length_ - 1) : make_string(offset_, "-");
    curl_easy_setopt(c, CURLOPT_RANGE, range_.c_str());
  }
  if (!config.access_key.empty()) {
    userpwd_ = config.access_key + ":" + config.secret_key;
    sigv4_ = "aws:amz:" + config.region + ":s3";
    curl_easy_setopt(c, CURLOPT_AWS_SIGV4, sigv4_.c_str());
    curl_easy_setopt(c, CURLOPT_USERPWD, userpwd_.c_str());
  }
  curl_easy_setopt(c, CURLOPT_URL, url_.c_str());
  if (head_) curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers_);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, write_cb);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink_);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, header_cb);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &response_.object_size);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, config.connect_timeout_ms);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, config.request_timeout_ms);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, config.low_speed_time_s);
  if (cancel_) {
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, progress_cb);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, const_cast<std::atomic<bool>*>(cancel_));
  }
}

Request::Outcome Request::finish(CURL* c, CURLcode code, const S3Config& config) {
  Response& r = response_;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  curl_off_t cl = -1;
  if (head_ && curl_easy_getinfo(c, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) == CURLE_OK) {
    r.content_length = cl;
  }
  if (code == CURLE_OK && r.status / 100 == 2) return Outcome::kDone;
  if (code == CURLE_OK && r.status == 416 && offset_ == 0 && out_) {
    // No byte 0 to give: the object is empty.
    out_->clear();
    r.object_size = 0;
    return Outcome::kDone;
  }
  if (sink_.too_large) {
    throw IOError(make_string("cannot read '", what_, "': larger than the size limit of ",
                              max_size_, " bytes"));
  }
  if (code == CURLE_ABORTED_BY_CALLBACK) {
    throw Cancelled(make_string("cannot read '", what_, "': cancelled"));
  }
  bool retry = false;
  std::string error;
  if (code != CURLE_OK) {
    error = make_string(curl_easy_strerror(code), " (", url_, ")");
    retry = retryable_curl(code);
    connection_ok_ = false;  // a broken connection is not reused
  } else {
    std::string err = xml_field(r.body, "Code");
    std::string msg = xml_field(r.body, "Message");
    error =
        make_string("HTTP ", r.status, err.empty() ? "" : " ", err, msg.empty() ? "" : ": ", msg);
    if (r.status == 404 && err.empty()) error += " (no such object or bucket)";
    if (r.status == 403) {
      error +=
          " (check the credentials: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or the "
          "AWS_PROFILE of ~/.aws/credentials)";
    }
    retry = retryable_status(r.status);
  }
  if (!retry || attempt_ >= config.max_attempts) {
    throw IOError(make_string("cannot read '", what_, "': ", error,
                              attempt_ > 1 ? make_string(" (after ", attempt_, " attempts)") : ""));
  }
  return Outcome::kRetry;
}

int64_t backoff_ms(const S3Config& config, int attempt, std::minstd_rand& rng) {
  int64_t cap = std::min<int64_t>(config.max_delay_ms,
                                  int64_t{config.base_delay_ms} << std::min(attempt, 20));
  return std::uniform_int_distribution<int64_t>(cap / 4, cap)(rng);
}

}  // namespace sluice::s3_detail

#endif  // SLUICE_HAS_CURL
