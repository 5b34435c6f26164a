// S3Prefetcher: many S3 requests in flight on one thread through libcurl's multi interface.

#include <sys/resource.h>

#include <chrono>
#include <map>
#include <random>
#include <unordered_map>

#include "sluice/core/error.h"
#include "sluice/io/s3_client.h"
#include "sluice/io/s3_request.h"

namespace sluice {
namespace {

void complete(S3Prefetcher::Fetch& f, std::vector<uint8_t> data, uint64_t object_size,
              std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> lock(f.mu);
    f.data = std::move(data);
    f.object_size = object_size;
    f.error = std::move(error);
    f.done = true;
  }
  f.cv.notify_all();
}

// Each request in flight holds a socket: stay within half the process's descriptor limit.
int within_descriptor_limit(int connections) {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return connections;
  return static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(connections, static_cast<int64_t>(rl.rlim_cur / 2))));
}

}  // namespace

#ifdef SLUICE_HAS_CURL

namespace {
using Clock = std::chrono::steady_clock;

void cancel(S3Prefetcher::Fetch& f) {
  complete(f, {}, 0,
           std::make_exception_ptr(Cancelled(make_string("cannot read '", f.uri, "': cancelled"))));
}

// One read and its attempts; stays in place while curl writes into it.
struct Active {
  Active(std::shared_ptr<S3Prefetcher::Fetch> f, const S3Uri& uri, const S3Config& config,
         size_t max_size)
      : fetch(std::move(f)),
        request(uri.str(), s3_detail::object_url(config, uri.bucket, uri.key), &data, max_size,
                fetch->offset, fetch->length, false, nullptr) {}
  std::shared_ptr<S3Prefetcher::Fetch> fetch;
  std::vector<uint8_t> data;
  s3_detail::Request request;
  CURL* curl = nullptr;
};
}  // namespace

struct S3Prefetcher::Loop {
  CURLM* multi = curl_multi_init();
  std::minstd_rand rng{std::random_device{}()};
  std::unordered_map<CURL*, std::unique_ptr<Active>> running;         // added to `multi`
  std::multimap<Clock::time_point, std::unique_ptr<Active>> waiting;  // backoff before a retry
  std::vector<CURL*> idle;  // easy handles to reuse (connections live in the multi handle)

  ~Loop() {
    for (auto& [curl, a] : running) {
      curl_multi_remove_handle(multi, curl);
      curl_easy_cleanup(curl);
      cancel(*a->fetch);
    }
    for (auto& [when, a] : waiting) {
      curl_easy_cleanup(a->curl);
      cancel(*a->fetch);
    }
    for (CURL* c : idle) curl_easy_cleanup(c);
    curl_multi_cleanup(multi);
  }

  // Starts the next attempt of `a`.
  void attempt(std::unique_ptr<Active> a, const S3Config& config) {
    if (!a->curl) {
      if (idle.empty()) {
        a->curl = curl_easy_init();
      } else {
        a->curl = idle.back();
        idle.pop_back();
      }
    }
    a->request.prepare(a->curl, config);
    curl_multi_add_handle(multi, a->curl);
    CURL* c = a->curl;
    running.emplace(c, std::move(a));
  }

  // Hands `a`'s easy handle back for the next request (a broken connection is closed by curl).
  void release(Active& a) {
    if (a.curl) idle.push_back(a.curl);
    a.curl = nullptr;
  }
};

S3Prefetcher::S3Prefetcher(std::shared_ptr<S3Client> client, int connections, size_t max_size)
    : client_(std::move(client)),
      max_size_(max_size),
      connections_(within_descriptor_limit(std::max(1, connections))),
      loop_(std::make_unique<Loop>()) {
  SLUICE_CHECK(loop_->multi != nullptr, IOError,
               "cannot start reading from object storage: "
               "libcurl's multi handle could not be made");
  // Connections beyond the requests in flight would only sit idle; fewer would queue requests
  // inside curl.
  curl_multi_setopt(loop_->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, static_cast<long>(connections_));
  curl_multi_setopt(loop_->multi, CURLMOPT_MAXCONNECTS, static_cast<long>(connections_));
  thread_ = std::thread([this] { run(); });
}

S3Prefetcher::~S3Prefetcher() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  curl_multi_wakeup(loop_->multi);
  thread_.join();
  loop_.reset();  // abandons the requests in flight and waiting to be retried
  for (auto& f : queue_) cancel(*f);
}

std::shared_ptr<S3Prefetcher::Fetch> S3Prefetcher::fetch(const std::string& uri, uint64_t offset,
                                                         int64_t length) {
  auto f = std::make_shared<Fetch>();
  f->uri = uri;
  f->offset = offset;
  f->length = length;
  bool was_empty = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    was_empty = queue_.empty();
    queue_.push_back(f);
  }
  // A queue that was not empty is drained as requests finish, which wakes the loop anyway.
  if (was_empty) curl_multi_wakeup(loop_->multi);
  return f;
}

void S3Prefetcher::run() {
  Loop& l = *loop_;
  const S3Config& config = client_->config_;
  std::vector<std::shared_ptr<Fetch>> starts;
  while (true) {
    starts.clear();
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) return;
      size_t busy = l.running.size() + l.waiting.size();
      while (!queue_.empty() && busy + starts.size() < static_cast<size_t>(connections_)) {
        starts.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    for (auto& f : starts) {
      try {
        S3Uri uri = S3Uri::parse(f->uri);
        s3_detail::check_object(uri);
        if (f->length == 0) {  // no byte range to ask for
          complete(*f, {}, 0, nullptr);
          continue;
        }
        l.attempt(std::make_unique<Active>(f, uri, config, max_size_), config);
      } catch (...) {
        complete(*f, {}, 0, std::current_exception());
      }
    }
    while (!l.waiting.empty() && l.waiting.begin()->first <= Clock::now()) {
      auto a = std::move(l.waiting.begin()->second);
      l.waiting.erase(l.waiting.begin());
      l.attempt(std::move(a), config);
    }

    int still_running = 0;
    curl_multi_perform(l.multi, &still_running);
    bool finished = false;
    int left = 0;
    while (CURLMsg* m = curl_multi_info_read(l.multi, &left)) {
      if (m->msg != CURLMSG_DONE) continue;
      CURL* c = m->easy_handle;
      CURLcode code = m->data.result;
      curl_multi_remove_handle(l.multi, c);
      auto it = l.running.find(c);
      std::unique_ptr<Active> a = std::move(it->second);
      l.running.erase(it);
      finished = true;
      try {
        if (a->request.finish(c, code, config) == s3_detail::Request::Outcome::kRetry) {
          ++client_->retries_;
          auto wake = Clock::now() + std::chrono::milliseconds(s3_detail::backoff_ms(
                                         config, a->request.attempt(), l.rng));
          l.waiting.emplace(wake, std::move(a));
          continue;
        }
        const s3_detail::Response& r = a->request.response();
        // A whole-object answer (200) has no Content-Range: its size is its body's.
        uint64_t size = r.object_size >= 0 ? static_cast<uint64_t>(r.object_size)
                                           : a->fetch->offset + a->data.size();
        l.release(*a);
        complete(*a->fetch, std::move(a->data), size, nullptr);
      } catch (...) {
        l.release(*a);
        complete(*a->fetch, {}, 0, std::current_exception());
      }
    }

    // Sleep until a socket is ready, curl's own timeout, the next retry, or a wake-up (a fetch,
    // the destructor); not at all when finished requests made room for queued ones.
    int timeout_ms = finished ? 0 : 1000;
    if (!finished && !l.waiting.empty()) {
      auto until = std::chrono::duration_cast<std::chrono::milliseconds>(l.waiting.begin()->first -
                                                                         Clock::now())
                       .count();
      timeout_ms = static_cast<int>(std::clamp<int64_t>(until + 1, 0, timeout_ms));
    }
    curl_multi_poll(l.multi, nullptr, 0, timeout_ms, nullptr);
  }
}

#else  // !SLUICE_HAS_CURL

struct S3Prefetcher::Loop {};

S3Prefetcher::S3Prefetcher(std::shared_ptr<S3Client> client, int connections, size_t max_size)
    : client_(std::move(client)),
      max_size_(max_size),
      connections_(within_descriptor_limit(std::max(1, connections))) {}

S3Prefetcher::~S3Prefetcher() = default;

std::shared_ptr<S3Prefetcher::Fetch> S3Prefetcher::fetch(const std::string& uri, uint64_t offset,
                                                         int64_t length) {
  auto f = std::make_shared<Fetch>();
  f->uri = uri;
  f->offset = offset;
  f->length = length;
  std::vector<uint8_t> data;
  try {
    client_->get(S3Uri::parse(uri), data, max_size_, offset, length);  // raises NotImplemented
  } catch (...) {
    complete(*f, {}, 0, std::current_exception());
  }
  return f;
}

void S3Prefetcher::run() {}

#endif

const std::vector<uint8_t>& S3Prefetcher::wait(Fetch& f) {
  std::unique_lock<std::mutex> lock(f.mu);
  f.cv.wait(lock, [&] { return f.done; });
  if (f.error) std::rethrow_exception(f.error);
  return f.data;
}

}  // namespace sluice
