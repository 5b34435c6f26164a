// S3 requests through libcurl: SigV4 signing by curl (CURLOPT_AWS_SIGV4), timeouts on every
// request, retries with exponential backoff and full jitter.

#include "sluice/io/s3_client.h"

#include <chrono>
#include <random>
#include <thread>

#include "sluice/core/error.h"
#include "sluice/io/s3_request.h"

namespace sluice {

#ifdef SLUICE_HAS_CURL
namespace {

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

s3_detail::Response S3Client::request(const std::string& what, const std::string& url,
                                      std::vector<uint8_t>* out, size_t max_size, uint64_t offset,
                                      int64_t length, const std::atomic<bool>* cancel, bool head) {
  static const std::atomic<bool> never{false};
  if (!cancel) cancel = &never;
  thread_local std::minstd_rand rng(std::random_device{}());
  s3_detail::Request req(what, url, out, max_size, offset, length, head, cancel);
  while (true) {
    if (*cancel) throw Cancelled(make_string("cannot read '", what, "': cancelled"));
    auto conn = take_connection();
    req.prepare(conn->curl, config_);
    CURLcode code = curl_easy_perform(conn->curl);
    s3_detail::Request::Outcome outcome;
    try {
      outcome = req.finish(conn->curl, code, config_);
    } catch (...) {
      if (req.connection_ok()) return_connection(std::move(conn));
      throw;
    }
    if (req.connection_ok()) return_connection(std::move(conn));
    if (outcome == s3_detail::Request::Outcome::kDone) return std::move(req.response());
    ++retries_;
    // Sliced so that a cancel is seen at once.
    auto wake = std::chrono::steady_clock::now() +
                std::chrono::milliseconds(s3_detail::backoff_ms(config_, req.attempt(), rng));
    while (!*cancel && std::chrono::steady_clock::now() < wake) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
}

void S3Client::get(const S3Uri& uri, std::vector<uint8_t>& out, size_t max_size, uint64_t offset,
                   int64_t length, const std::atomic<bool>* cancel, uint64_t* object_size) {
  s3_detail::check_object(uri);
  if (length == 0) {  // no byte range to ask for
    out.clear();
    return;
  }
  s3_detail::Response r = request(uri.str(), s3_detail::object_url(config_, uri.bucket, uri.key),
                                  &out, max_size, offset, length, cancel);
  if (object_size) {
    // A whole-object answer (200) has no Content-Range: its size is its body's.
    *object_size = r.object_size >= 0 ? static_cast<uint64_t>(r.object_size) : offset + out.size();
  }
}

uint64_t S3Client::size(const S3Uri& uri) {
  s3_detail::Response r = request(uri.str(), s3_detail::object_url(config_, uri.bucket, uri.key),
                                  nullptr, 0, 0, -1, nullptr, true);
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
    if (!token.empty()) query += "continuation-token=" + s3_detail::uri_encode(token, false) + "&";
    query += make_string("list-type=2&max-keys=", max_keys,
                         "&prefix=", s3_detail::uri_encode(prefix, false));
    std::string url =
        config_.endpoint.empty()
            ? make_string("https://", bucket, ".s3.", config_.region, ".amazonaws.com/?", query)
            : make_string(config_.endpoint, "/", bucket, "?", query);
    s3_detail::Response r = request(what, url, nullptr, 0, 0, -1, nullptr);
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

}  // namespace sluice
