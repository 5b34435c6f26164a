#pragma once
// One S3 request on a libcurl easy handle: its set-up (SigV4 signing by curl, range, timeouts,
// the sinks of the body and of Content-Range) and the classification of its answer (done, to be
// retried, or an error naming the object), shared by S3Client's blocking requests and
// S3Prefetcher's event loop so that both behave the same. Built with SLUICE_HAS_CURL only.

#include <atomic>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "sluice/io/s3_client.h"

#ifdef SLUICE_HAS_CURL
#include <curl/curl.h>

namespace sluice::s3_detail {

struct Response {
  long status = 0;
  int64_t content_length = -1;  // HEAD answers
  int64_t object_size = -1;     // from Content-Range ("bytes a-b/size") of ranged answers
  std::string body;             // error answers and listings
};

// RFC 3986 percent-encoding as SigV4's canonical request spells it ('/' kept in paths).
std::string uri_encode(std::string_view s, bool keep_slash);

// The URL of an object: virtual-hosted on AWS, path-style on a configured endpoint.
std::string object_url(const S3Config& config, const std::string& bucket, const std::string& key);

// InvalidArgument when `uri` names a prefix ("" or ending with '/'), not an object.
void check_object(const S3Uri& uri);

// A request and its attempts. It owns what the easy handle points at, so it must stay in place
// (not be moved) while an attempt runs.
class Request {
 public:
  // `what` names the object in errors; `out` receives a 2xx body (nullptr: kept in the response
  // body, for listings, or none for HEAD). `cancel` (optional) aborts a running attempt.
  Request(std::string what, std::string url, std::vector<uint8_t>* out, size_t max_size,
          uint64_t offset, int64_t length, bool head, const std::atomic<bool>* cancel);
  ~Request();
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;

  // Resets `curl` and sets it up for the next attempt.
  void prepare(CURL* curl, const S3Config& config);

  enum class Outcome { kDone, kRetry };
  // After an attempt on `curl` ended with `code`: kDone (the answer is in response()), kRetry
  // (a transient failure, attempts left), or throws IOError naming the object (permanent answer,
  // too large, attempts exhausted) or Cancelled.
  Outcome finish(CURL* curl, CURLcode code, const S3Config& config);

  // Whether the last attempt's connection may be reused (not after a transport error).
  bool connection_ok() const { return connection_ok_; }
  int attempt() const { return attempt_; }
  Response& response() { return response_; }
  const std::string& what() const { return what_; }

 private:
  struct Sink {
    Request* request = nullptr;
    CURL* curl = nullptr;
    bool too_large = false;
    long status = 0;
  };
  static size_t write_cb(char* p, size_t, size_t n, void* user);

  std::string what_;
  std::string url_;
  std::vector<uint8_t>* out_;
  size_t max_size_;
  uint64_t offset_;
  int64_t length_;
  bool head_;
  const std::atomic<bool>* cancel_;

  int attempt_ = 0;
  bool connection_ok_ = true;
  Response response_;
  Sink sink_;
  curl_slist* headers_ = nullptr;
  std::string range_, userpwd_, sigv4_;
};

// The wait before the attempt after `attempt` (1-based): full jitter, uniform in [cap / 4, cap]
// with cap = min(max_delay, base_delay * 2^attempt), which spreads the retries of many clients.
int64_t backoff_ms(const S3Config& config, int attempt, std::minstd_rand& rng);

}  // namespace sluice::s3_detail

#endif  // SLUICE_HAS_CURL
