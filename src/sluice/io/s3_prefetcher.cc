// S3Prefetcher: many S3 requests in flight on one thread through libcurl's multi interface.

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <optional>
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

std::shared_ptr<S3Prefetcher::Fetch> new_fetch(const std::string& uri, uint64_t offset,
                                               int64_t length) {
  auto f = std::make_shared<S3Prefetcher::Fetch>();
  f->uri = uri;
  f->offset = offset;
  f->length = length;
  return f;
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

// libcurl's event-driven interface (curl_multi_socket_action) on epoll: each event costs the work
// of its own transfer, where curl_multi_perform and curl_multi_poll visit every transfer in flight
// (measured: that doubled the client's CPU per object at 256 in flight).
struct S3Prefetcher::Loop {
  CURLM* multi = curl_multi_init();
  int epoll = epoll_create1(EPOLL_CLOEXEC);
  int wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);  // fetch() and the destructor write to it
  std::optional<Clock::time_point> curl_deadline;     // curl's timer
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
    if (epoll >= 0) close(epoll);
    if (wake >= 0) close(wake);
  }

  static int on_socket(CURL*, curl_socket_t s, int what, void* user, void*) {
    auto* l = static_cast<Loop*>(user);
    if (what == CURL_POLL_REMOVE) {
      epoll_ctl(l->epoll, EPOLL_CTL_DEL, s, nullptr);
      return 0;
    }
    epoll_event ev{};
    ev.data.fd = s;
    ev.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0u) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0u);
    if (epoll_ctl(l->epoll, EPOLL_CTL_MOD, s, &ev) != 0) epoll_ctl(l->epoll, EPOLL_CTL_ADD, s, &ev);
    return 0;
  }

  static int on_timer(CURLM*, long timeout_ms, void* user) {
    auto* l = static_cast<Loop*>(user);
    if (timeout_ms < 0) {
      l->curl_deadline.reset();
    } else {
      l->curl_deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    }
    return 0;
  }

  void wake_up() const {
    uint64_t one = 1;
    [[maybe_unused]] ssize_t n = write(wake, &one, sizeof(one));
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
    CURLMcode code = curl_multi_add_handle(multi, a->curl);
    if (code != CURLM_OK) {  // fails the read rather than leave it waiting for ever
      release(*a);
      complete(*a->fetch, {}, 0,
               std::make_exception_ptr(IOError(make_string("cannot read '", a->request.what(),
                                                           "': ", curl_multi_strerror(code)))));
      return;
    }
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
  SLUICE_CHECK(loop_->multi != nullptr && loop_->epoll >= 0 && loop_->wake >= 0, IOError,
               "cannot start reading from object storage: "
               "libcurl's multi handle or its epoll could not be made");
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = loop_->wake;
  epoll_ctl(loop_->epoll, EPOLL_CTL_ADD, loop_->wake, &ev);
  curl_multi_setopt(loop_->multi, CURLMOPT_SOCKETFUNCTION, &Loop::on_socket);
  curl_multi_setopt(loop_->multi, CURLMOPT_SOCKETDATA, loop_.get());
  curl_multi_setopt(loop_->multi, CURLMOPT_TIMERFUNCTION, &Loop::on_timer);
  curl_multi_setopt(loop_->multi, CURLMOPT_TIMERDATA, loop_.get());
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
  loop_->wake_up();
  thread_.join();
  loop_.reset();  // abandons the requests in flight and waiting to be retried
  for (auto& f : queue_) cancel(*f);
}

std::shared_ptr<S3Prefetcher::Fetch> S3Prefetcher::fetch(const std::string& uri, uint64_t offset,
                                                         int64_t length) {
  auto f = new_fetch(uri, offset, length);
  bool was_empty = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    was_empty = queue_.empty();
    queue_.push_back(f);
  }
  // A queue that was not empty is drained as requests finish, which wakes the loop anyway.
  if (was_empty) loop_->wake_up();
  return f;
}

void S3Prefetcher::run() {
  Loop& l = *loop_;
  const S3Config& config = client_->config_;
  std::vector<std::shared_ptr<Fetch>> starts;
  bool finished = false;
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

    // Sleep until a socket is ready, curl's timer, the next retry or a wake-up (a fetch, the
    // destructor); not at all when finished requests made room for queued ones.
    auto now = Clock::now();
    int64_t wait_ms = finished ? 0 : 1000;
    for (auto when : {l.curl_deadline,
                      l.waiting.empty() ? std::nullopt : std::optional(l.waiting.begin()->first)}) {
      if (!when) continue;
      auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(*when - now).count();
      wait_ms = std::clamp<int64_t>(*when > now ? ms + 1 : 0, 0, wait_ms);
    }
    epoll_event events[256];
    int n = epoll_wait(l.epoll, events, 256, static_cast<int>(wait_ms));
    int still_running = 0;
    for (int i = 0; i < n; ++i) {
      if (events[i].data.fd == l.wake) {
        uint64_t count = 0;
        [[maybe_unused]] ssize_t r = read(l.wake, &count, sizeof(count));
        continue;
      }
      int flags = ((events[i].events & EPOLLIN) ? CURL_CSELECT_IN : 0) |
                  ((events[i].events & EPOLLOUT) ? CURL_CSELECT_OUT : 0) |
                  ((events[i].events & (EPOLLERR | EPOLLHUP)) ? CURL_CSELECT_ERR : 0);
      curl_multi_socket_action(l.multi, events[i].data.fd, flags, &still_running);
    }
    if (l.curl_deadline && *l.curl_deadline <= Clock::now()) {
      l.curl_deadline.reset();
      curl_multi_socket_action(l.multi, CURL_SOCKET_TIMEOUT, 0, &still_running);
    }

    finished = false;
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
  auto f = new_fetch(uri, offset, length);
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
