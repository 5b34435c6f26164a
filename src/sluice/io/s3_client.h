#pragma once
// Reading objects from S3-compatible object storage (`s3://bucket/key`) through libcurl, whose
// built-in AWS SigV4 signing (CURLOPT_AWS_SIGV4) signs every request. Built with SLUICE_HAS_CURL;
// without it every call raises NotImplemented naming the package to install.
//
// Configuration comes from the usual AWS sources (S3Config::from_environment): AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION / AWS_DEFAULT_REGION, AWS_ENDPOINT_URL_S3 /
// AWS_ENDPOINT_URL, and the profile AWS_PROFILE (default "default") of ~/.aws/credentials and
// ~/.aws/config (AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE). Environment variables win over
// the files. Without credentials, requests go unsigned (public buckets).
//
// Every request has a connect timeout, a low-speed timeout and an overall timeout, so a stalled
// server never hangs the caller. Throttling (HTTP 503 SlowDown, 429), server errors (5xx) and
// transport failures (connection refused or reset, timeouts, truncated bodies) are retried with
// exponential backoff and full jitter; permanent answers (403, 404, ...) and exhausted retries
// raise IOError "cannot read 's3://bucket/key': <why>" with the server's error code and message.
//
// Thread safety: S3Client is safe to share between threads (each request takes a connection from
// a small pool, so connections are reused); so are S3Prefetcher's fetch() and wait().

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "sluice/core/env.h"

namespace sluice {

namespace s3_detail {
struct Response;
}

// True when `path` starts with "s3://".
bool is_s3_uri(std::string_view path);

// "s3://bucket/key" split into bucket and key (the key may be empty or end with '/').
// InvalidArgument when the bucket is missing.
struct S3Uri {
  std::string bucket;
  std::string key;
  static S3Uri parse(std::string_view uri);
  std::string str() const { return "s3://" + bucket + "/" + key; }
};

struct S3Config {
  std::string access_key;
  std::string secret_key;
  std::string session_token;
  std::string region = "us-east-1";
  std::string endpoint;  // "" = AWS (virtual-hosted addressing); else path-style addressing
  // Retries and timeouts (SLUICE_S3_MAX_ATTEMPTS, SLUICE_S3_TIMEOUT_S override the defaults).
  int max_attempts = 10;
  int base_delay_ms = 50;
  int max_delay_ms = 5000;
  long connect_timeout_ms = 10000;
  long request_timeout_ms = 120000;
  long low_speed_time_s = 20;  // abort a transfer below 1 byte/s for this long

  static S3Config from_environment();
};

class S3Client {
 public:
  explicit S3Client(S3Config config);
  ~S3Client();
  S3Client(const S3Client&) = delete;
  S3Client& operator=(const S3Client&) = delete;

  // Whether this build reads object storage (was built with libcurl).
  static bool available();

  // The client shared by every reader of the process, configured from the environment when first
  // used.
  static std::shared_ptr<S3Client> shared();

  // Reads the object `uri` (bytes [offset, offset + length) when length >= 0) into `out`.
  // IOError naming the object when it is missing, forbidden, larger than `max_size`, or cannot be
  // read after the retries. Once `*cancel` is set (when given), the request in progress and its
  // retries stop at once with Cancelled. A range reaching past the end gives the bytes up to it
  // (a range from 0 of an empty object gives none). `object_size` (when given) receives the
  // whole object's size (not for length 0, which asks for nothing).
  void get(const S3Uri& uri, std::vector<uint8_t>& out, size_t max_size, uint64_t offset = 0,
           int64_t length = -1, const std::atomic<bool>* cancel = nullptr,
           uint64_t* object_size = nullptr);

  // The size of the object `uri` (a HEAD request); IOError naming it when it cannot be had.
  uint64_t size(const S3Uri& uri);

  // Lists the keys under `prefix` in key order, page by page (`max_keys` per page, continuation
  // tokens), calling `on_key(key, size)` for each; only one page is held at a time.
  void list(const std::string& bucket, const std::string& prefix,
            const std::function<void(std::string_view key, uint64_t size)>& on_key,
            int max_keys = 1000);

  // Requests retried so far (after throttling or transient errors), for tests and logs.
  int64_t retries() const { return retries_.load(); }

  struct Connection;

 private:
  friend class S3Prefetcher;  // shares the configuration and the retry count
  s3_detail::Response request(const std::string& what, const std::string& url,
                              std::vector<uint8_t>* out, size_t max_size, uint64_t offset,
                              int64_t length, const std::atomic<bool>* cancel, bool head = false);
  std::unique_ptr<Connection> take_connection();
  void return_connection(std::unique_ptr<Connection> c);

  S3Config config_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Connection>> idle_;  // guarded by mu_
  std::atomic<int64_t> retries_{0};
};

// The requests a reader's prefetcher keeps in flight: SLUICE_S3_CONNECTIONS, by default four
// batches' objects, 32 to 1024. A reader gets at most (requests in flight) / (round trip) objects
// a second, and a request in flight costs a socket, not a thread (bench/RESULTS.md, "many
// requests in flight").
inline int s3_connections(int batch_size) {
  return env_int("SLUICE_S3_CONNECTIONS", std::clamp(4 * batch_size, 32, 1024), 1, 4096);
}

// Reads objects ahead with many requests in flight, so that round trips overlap: fetch() starts a
// read and returns a handle (which any number of users may share and wait on); wait() blocks until
// it is done and returns the bytes or throws its error. One thread drives every request through
// libcurl's multi interface (one connection per request in flight, reused from its connection
// cache; retries wait on timers of the loop, not on sleeping threads), with the behaviour of
// S3Client::get: retries with backoff, the same errors naming the object. Destruction abandons
// every request at once: reads not finished fail with Cancelled.
class S3Prefetcher {
 public:
  struct Fetch;
  // At most `connections` requests in flight (fewer when the process's descriptor limit is low:
  // each needs a socket); objects larger than `max_size` fail.
  S3Prefetcher(std::shared_ptr<S3Client> client, int connections, size_t max_size);
  ~S3Prefetcher();
  S3Prefetcher(const S3Prefetcher&) = delete;
  S3Prefetcher& operator=(const S3Prefetcher&) = delete;

  // The whole object, or `length` bytes from `offset` when length >= 0.
  std::shared_ptr<Fetch> fetch(const std::string& uri, uint64_t offset = 0, int64_t length = -1);
  // The object's bytes, kept by the handle (a handle may serve several batches).
  const std::vector<uint8_t>& wait(Fetch& f);

  // The most requests in flight at once.
  int connections() const { return connections_; }

 private:
  struct Loop;
  void run();

  std::shared_ptr<S3Client> client_;
  size_t max_size_;
  int connections_;
  std::mutex mu_;
  std::deque<std::shared_ptr<Fetch>> queue_;  // guarded by mu_: not started yet
  bool stop_ = false;                         // guarded by mu_
  std::unique_ptr<Loop> loop_;                // the requests in flight: the loop thread's
  std::thread thread_;
};

struct S3Prefetcher::Fetch {
  std::string uri;
  uint64_t offset = 0;
  int64_t length = -1;
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::vector<uint8_t> data;
  uint64_t object_size = 0;  // the whole object's size
  std::exception_ptr error;
};

// Parses one ListObjectsV2 answer: calls on_key for each <Contents> key (entities decoded) and
// returns the NextContinuationToken ("" on the last page). IOError on a malformed page.
std::string parse_list_page(std::string_view xml,
                            const std::function<void(std::string_view, uint64_t)>& on_key);

}  // namespace sluice
