// S3 requests through libcurl: SigV4 signing by curl (CURLOPT_AWS_SIGV4), timeouts on every
// request, retries with exponential backoff and full jitter.

#include "sluice/io/s3_client.h"

#include <cctype>
#include <chrono>
#include <random>

#include "sluice/core/error.h"

#ifdef SLUICE_HAS_CURL
#include <curl/curl.h>
#endif

namespace sluice {

struct S3Client::Response {
  long status = 0;
  int64_t content_length = -1;  // HEAD answers
  int64_t object_size = -1;     // from Content-Range ("bytes a-b/size") of ranged answers
  std::string body;             // error answers and listings
};

#ifdef SLUICE_HAS_CURL
namespace {

// SHA-256 of the empty payload: GET and LIST carry none; S3 wants it in x-amz-content-sha256.
constexpr const char* kEmptySha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

// RFC 3986 percent-encoding as SigV4's canonical request spells it ('/' kept in paths).
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

struct Sink {
  std::vector<uint8_t>* data = nullptr;  // the object (2xx answers)
  std::string* body = nullptr;           // listings and error answers
  size_t max_size = 0;
  bool too_large = false;
  long status = 0;
  CURL* curl = nullptr;
};

size_t write_cb(char* p, size_t, size_t n, void* user) {
  auto* s = static_cast<Sink*>(user);
  if (s->status == 0) curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &s->status);
  if (s->data && s->status / 100 == 2) {
    if (s->data->size() + n > s->max_size) {
      s->too_large = true;
      return 0;  // aborts the transfer (CURLE_WRITE_ERROR)
    }
    s->data->insert(s->data->end(), p, p + n);
  } else if (s->body->size() < (size_t{64} << 20)) {
    s->body->append(p, n);
  }
  return n;
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
  return static_cast<std::atomic<bool>*>(user)->load() ? 1 : 0;
}

struct CurlGlobal {
  CurlGlobal() { curl_global_init(CURL_GLOBAL_DEFAULT); }
};

}  // namespace

struct S3Client::Connection {
  CURL* curl = curl_easy_init();
  ~Connection() { curl_easy_cleanup(curl); }
};

S3Client::S3Client(S3Config config) : config_(std::move(config)) {
  static CurlGlobal global;
}
bool S3Client::available() {
  return true;
}
S3Client::~S3Client() = default;

std::unique_ptr<S3Client::Connection> S3Client::take_connection() {
  std::lock_guard<std::mutex> lock(mu_);
  if (idle_.empty()) return std::make_unique<Connection>();
  auto c = std::move(idle_.back());
  idle_.pop_back();
  return c;
}

void S3Client::return_connection(std::unique_ptr<Connection> c) {
  std::lock_guard<std::mutex> lock(mu_);
  if (idle_.size() < 256) idle_.push_back(std::move(c));
}

std::string S3Client::object_url(const std::string& bucket, const std::string& key) const {
  if (config_.endpoint.empty()) {
    return make_string("https://", bucket, ".s3.", config_.region, ".amazonaws.com/",
                       uri_encode(key, true));
  }
  return make_string(config_.endpoint, "/", bucket, "/", uri_encode(key, true));
}

S3Client::Response S3Client::request(const std::string& what, const std::string& url,
                                     std::vector<uint8_t>* out, size_t max_size, uint64_t offset,
                                     int64_t length, const std::atomic<bool>* cancel, bool head) {
  static const std::atomic<bool> never{false};
  if (!cancel) cancel = &never;
  thread_local std::minstd_rand rng(std::random_device{}());
  std::string last_error;
  for (int attempt = 1;; ++attempt) {
    if (*cancel) throw Cancelled(make_string("cannot read '", what, "': cancelled"));
    auto conn = take_connection();
    CURL* c = conn->curl;
    curl_easy_reset(c);
    Response r;
    Sink sink{out, &r.body, max_size, false, 0, c};
    if (out) out->clear();
    curl_slist* headers = nullptr;
    headers =
        curl_slist_append(headers, make_string("x-amz-content-sha256: ", kEmptySha256).c_str());
    if (!config_.session_token.empty()) {
      headers = curl_slist_append(
          headers, make_string("x-amz-security-token: ", config_.session_token).c_str());
    }
    std::string range;
    if (length >= 0 || offset > 0) {
      range =
          length >= 0 ? make_string(offset, "-", offset + length - 1) : make_string(offset, "-");
      curl_easy_setopt(c, CURLOPT_RANGE, range.c_str());
    }
    std::string userpwd = config_.access_key + ":" + config_.secret_key;
    std::string sigv4 = "aws:amz:" + config_.region + ":s3";
    if (!config_.access_key.empty()) {
      curl_easy_setopt(c, CURLOPT_AWS_SIGV4, sigv4.c_str());
      curl_easy_setopt(c, CURLOPT_USERPWD, userpwd.c_str());
    }
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    if (head) curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, write_cb);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, header_cb);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &r.object_size);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, config_.connect_timeout_ms);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, config_.request_timeout_ms);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, config_.low_speed_time_s);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, progress_cb);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, const_cast<std::atomic<bool>*>(cancel));
    CURLcode code = curl_easy_perform(c);
    curl_slist_free_all(headers);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    curl_off_t cl = -1;
    if (head && curl_easy_getinfo(c, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) == CURLE_OK) {
      r.content_length = cl;
    }

    bool retry = false;
    if (code == CURLE_OK && (r.status / 100 == 2)) {
      return_connection(std::move(conn));
      return r;
    }
    if (code == CURLE_OK && r.status == 416 && offset == 0 && out) {
      // No byte 0 to give: the object is empty.
      return_connection(std::move(conn));
      out->clear();
      r.object_size = 0;
      return r;
    }
    if (sink.too_large) {
      throw IOError(make_string("cannot read '", what, "': larger than the size limit of ",
                                max_size, " bytes"));
    }
    if (code == CURLE_ABORTED_BY_CALLBACK) {
      throw Cancelled(make_string("cannot read '", what, "': cancelled"));
    }
    if (code != CURLE_OK) {
      last_error = make_string(curl_easy_strerror(code), " (", url, ")");
      retry = retryable_curl(code);
      conn.reset();  // a broken connection is not reused
    } else {
      std::string err = xml_field(r.body, "Code");
      std::string msg = xml_field(r.body, "Message");
      last_error =
          make_string("HTTP ", r.status, err.empty() ? "" : " ", err, msg.empty() ? "" : ": ", msg);
      if (r.status == 404 && err.empty()) last_error += " (no such object or bucket)";
      if (r.status == 403) {
        last_error +=
            " (check the credentials: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or the "
            "AWS_PROFILE of ~/.aws/credentials)";
      }
      retry = retryable_status(r.status);
      return_connection(std::move(conn));
    }
    if (!retry || attempt >= config_.max_attempts) {
      throw IOError(make_string("cannot read '", what, "': ", last_error,
                                attempt > 1 ? make_string(" (after ", attempt, " attempts)") : ""));
    }
    ++retries_;
    // Jitter: a uniform wait in [cap / 4, cap], cap = min(max, base * 2^attempt), spreads the
    // retries of many clients; sliced so that a cancel is seen at once.
    int64_t cap = std::min<int64_t>(config_.max_delay_ms,
                                    int64_t{config_.base_delay_ms} << std::min(attempt, 20));
    auto wake =
        std::chrono::steady_clock::now() +
        std::chrono::milliseconds(std::uniform_int_distribution<int64_t>(cap / 4, cap)(rng));
    while (!*cancel && std::chrono::steady_clock::now() < wake) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
}

void S3Client::get(const S3Uri& uri, std::vector<uint8_t>& out, size_t max_size, uint64_t offset,
                   int64_t length, const std::atomic<bool>* cancel, uint64_t* object_size) {
  SLUICE_CHECK(!uri.key.empty() && uri.key.back() != '/', InvalidArgument, "cannot read '",
               uri.str(), "': names a prefix, not an object");
  if (length == 0) {  // no byte range to ask for
    out.clear();
    return;
  }
  Response r =
      request(uri.str(), object_url(uri.bucket, uri.key), &out, max_size, offset, length, cancel);
  if (object_size) {
    // A whole-object answer (200) has no Content-Range: its size is its body's.
    *object_size = r.object_size >= 0 ? static_cast<uint64_t>(r.object_size) : offset + out.size();
  }
}

uint64_t S3Client::size(const S3Uri& uri) {
  Response r =
      request(uri.str(), object_url(uri.bucket, uri.key), nullptr, 0, 0, -1, nullptr, true);
  SLUICE_CHECK(r.content_length >= 0, IOError, "cannot read '", uri.str(),
               "': the server gave no Content-Length");
  return static_cast<uint64_t>(r.content_length);
}

void S3Client::list(const std::string& bucket, const std::string& prefix,
                    const std::function<void(std::string_view, uint64_t)>& on_key, int max_keys) {
  const std::string what = make_string("s3://", bucket, "/", prefix);
  std::string token;
  do {
    // The query in canonical SigV4 form (parameters sorted, values percent-encoded), so that the
    // signed query is the one sent.
    std::string query;
    if (!token.empty()) query += "continuation-token=" + uri_encode(token, false) + "&";
    query += make_string("list-type=2&max-keys=", max_keys, "&prefix=", uri_encode(prefix, false));
    std::string url =
        config_.endpoint.empty()
            ? make_string("https://", bucket, ".s3.", config_.region, ".amazonaws.com/?", query)
            : make_string(config_.endpoint, "/", bucket, "?", query);
    Response r = request(what, url, nullptr, 0, 0, -1, nullptr);
    try {
      token = parse_list_page(r.body, on_key);
    } catch (const IOError& e) {
      throw IOError(make_string("cannot list '", what, "': ", e.what()));
    }
  } while (!token.empty());
}

#else  // !SLUICE_HAS_CURL

struct S3Client::Connection {};
S3Client::S3Client(S3Config config) : config_(std::move(config)) {}
bool S3Client::available() {
  return false;
}
S3Client::~S3Client() = default;
static void no_curl(const std::string& what) {
  throw NotImplemented(make_string("cannot read '", what,
                                   "': this build has no S3 support (install libcurl4-openssl-dev "
                                   "and rebuild)"));
}
void S3Client::get(const S3Uri& uri, std::vector<uint8_t>&, size_t, uint64_t, int64_t,
                   const std::atomic<bool>*, uint64_t*) {
  no_curl(uri.str());
}
uint64_t S3Client::size(const S3Uri& uri) {
  no_curl(uri.str());
  return 0;
}
void S3Client::list(const std::string& bucket, const std::string& prefix,
                    const std::function<void(std::string_view, uint64_t)>&, int) {
  no_curl(make_string("s3://", bucket, "/", prefix));
}

#endif

std::shared_ptr<S3Client> S3Client::shared() {
  static std::mutex mu;
  static std::weak_ptr<S3Client> current;
  std::lock_guard<std::mutex> lock(mu);
  auto c = current.lock();
  if (!c) {
    // Made anew once the last user is gone, so that a changed environment (tests) takes effect.
    c = std::make_shared<S3Client>(S3Config::from_environment());
    current = c;
  }
  return c;
}

// ---- S3Prefetcher

S3Prefetcher::S3Prefetcher(std::shared_ptr<S3Client> client, int connections, size_t max_size)
    : client_(std::move(client)), max_size_(max_size) {
  for (int i = 0; i < connections; ++i) threads_.emplace_back([this] { work(); });
}

S3Prefetcher::~S3Prefetcher() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cancel_ = true;
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

std::shared_ptr<S3Prefetcher::Fetch> S3Prefetcher::fetch(const std::string& uri, uint64_t offset,
                                                         int64_t length) {
  auto f = std::make_shared<Fetch>();
  f->uri = uri;
  f->offset = offset;
  f->length = length;
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(f);
  }
  cv_.notify_one();
  return f;
}

const std::vector<uint8_t>& S3Prefetcher::wait(Fetch& f) {
  std::unique_lock<std::mutex> lock(f.mu);
  f.cv.wait(lock, [&] { return f.done; });
  if (f.error) std::rethrow_exception(f.error);
  return f.data;
}

void S3Prefetcher::work() {
  while (true) {
    std::shared_ptr<Fetch> f;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      f = std::move(queue_.front());
      queue_.pop_front();
    }
    std::vector<uint8_t> data;
    uint64_t object_size = 0;
    std::exception_ptr error;
    try {
      client_->get(S3Uri::parse(f->uri), data, max_size_, f->offset, f->length, &cancel_,
                   &object_size);
    } catch (...) {
      error = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(f->mu);
      f->data = std::move(data);
      f->object_size = object_size;
      f->error = error;
      f->done = true;
    }
    f->cv.notify_all();
  }
}

}  // namespace sluice
