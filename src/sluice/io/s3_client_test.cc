// The network-free parts of the S3 client (the requests themselves are tested against a real
// server in tests/python/test_s3_reader.py).

#include "sluice/io/s3_client.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/io/detail/io_test_util.h"
#include "sluice/io/detail/temp_tree.h"

namespace sluice {
namespace {

using io_detail::expect_error;

TEST(S3Uri, SplitsBucketAndKey) {
  S3Uri u = S3Uri::parse("s3://bucket/a/b.jpg");
  EXPECT_EQ(u.bucket, "bucket");
  EXPECT_EQ(u.key, "a/b.jpg");
  EXPECT_EQ(S3Uri::parse("s3://bucket").key, "");
  EXPECT_EQ(u.str(), "s3://bucket/a/b.jpg");
  expect_error<InvalidArgument>([] { S3Uri::parse("s3:///key"); }, {"names no bucket"});
  EXPECT_TRUE(is_s3_uri("s3://x"));
  EXPECT_FALSE(is_s3_uri("/s3://x"));
}

TEST(S3ListPage, KeysInOrderWithEntitiesAndTheContinuationToken) {
  const std::string page =
      "<?xml version=\"1.0\"?><ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/\">"
      "<Name>b</Name><IsTruncated>true</IsTruncated>"
      "<Contents><Key>p/a&amp;b.jpg</Key><Size>12</Size></Contents>"
      "<Contents><Key>p/&#233;&#x4E2D;.jpg</Key><Size>3</Size></Contents>"
      "<NextContinuationToken>tok&lt;1&gt;</NextContinuationToken></ListBucketResult>";
  std::vector<std::pair<std::string, uint64_t>> keys;
  std::string token =
      parse_list_page(page, [&](std::string_view k, uint64_t s) { keys.emplace_back(k, s); });
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0].first, "p/a&b.jpg");
  EXPECT_EQ(keys[0].second, 12u);
  EXPECT_EQ(keys[1].first, "p/\xC3\xA9\xE4\xB8\xAD.jpg");
  EXPECT_EQ(token, "tok<1>");
}

TEST(S3ListPage, LastPageAndMalformedPages) {
  auto none = [](std::string_view, uint64_t) {};
  EXPECT_EQ(parse_list_page("<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>",
                            none),
            "");
  expect_error<IOError>([&] { parse_list_page("<html>proxy error</html>", none); },
                        {"no <ListBucketResult>"});
  expect_error<IOError>([&] { parse_list_page("<ListBucketResult><Contents><Key>a", none); },
                        {"not closed"});
  expect_error<IOError>(
      [&] {
        parse_list_page("<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",
                        none);
      },
      {"without NextContinuationToken"});
  expect_error<IOError>(
      [&] { parse_list_page("<ListBucketResult><Contents><Key>&bogus;</Key></Contents>", none); },
      {"unknown XML entity"});
}

TEST(S3Config, EnvironmentWinsOverProfileFiles) {
  io_detail::TempTree t;
  std::string creds = t.file("credentials",
                             "[default]\naws_access_key_id = D\naws_secret_access_key = DS\n"
                             "[other]\naws_access_key_id = O\naws_secret_access_key = OS\n");
  std::string config = t.file("config",
                              "[profile other]\nregion = eu-west-3\n"
                              "endpoint_url = http://127.0.0.1:9000/\n");
  for (const char* v :
       {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION",
        "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"}) {
    unsetenv(v);
  }
  setenv("AWS_SHARED_CREDENTIALS_FILE", creds.c_str(), 1);
  setenv("AWS_CONFIG_FILE", config.c_str(), 1);
  setenv("AWS_PROFILE", "other", 1);
  S3Config c = S3Config::from_environment();
  EXPECT_EQ(c.access_key, "O");
  EXPECT_EQ(c.secret_key, "OS");
  EXPECT_EQ(c.region, "eu-west-3");
  EXPECT_EQ(c.endpoint, "http://127.0.0.1:9000");
  setenv("AWS_ACCESS_KEY_ID", "E", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "ES", 1);
  setenv("AWS_DEFAULT_REGION", "us-west-2", 1);
  c = S3Config::from_environment();
  EXPECT_EQ(c.access_key, "E");
  EXPECT_EQ(c.secret_key, "ES");
  EXPECT_EQ(c.region, "us-west-2");
  for (const char* v : {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_DEFAULT_REGION",
                        "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE", "AWS_PROFILE"}) {
    unsetenv(v);
  }
}

// A server that accepts connections (the kernel does, from the backlog) and never answers.
struct SilentServer {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int port = 0;
  SilentServer() {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(a);
    EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), len), 0);
    EXPECT_EQ(listen(fd, 16), 0);
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
  }
  ~SilentServer() { close(fd); }
};

S3Config silent_config(const SilentServer& s, long timeout_ms, int attempts) {
  S3Config c;
  c.endpoint = "http://127.0.0.1:" + std::to_string(s.port);
  c.access_key = "k";
  c.secret_key = "s";
  c.request_timeout_ms = timeout_ms;
  c.max_attempts = attempts;
  return c;
}

TEST(S3Client, ASilentServerTimesOutWithAnErrorNamingTheObject) {
  if (!S3Client::available()) GTEST_SKIP() << "built without libcurl";
  SilentServer server;
  S3Client client(silent_config(server, 300, 2));
  std::vector<uint8_t> out;
  auto t0 = std::chrono::steady_clock::now();
  expect_error<IOError>([&] { client.get(S3Uri::parse("s3://b/k.jpg"), out, 100); },
                        {"cannot read 's3://b/k.jpg'", "after 2 attempts"});
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_EQ(client.retries(), 1);
}

TEST(S3Prefetcher, IsDestroyedAtOnceWhileItsRequestsHang) {
  if (!S3Client::available()) GTEST_SKIP() << "built without libcurl";
  SilentServer server;
  auto client = std::make_shared<S3Client>(silent_config(server, 60000, 10));
  auto prefetcher = std::make_unique<S3Prefetcher>(client, 4, 100);
  std::vector<std::shared_ptr<S3Prefetcher::Fetch>> fetches;
  for (int i = 0; i < 8; ++i) fetches.push_back(prefetcher->fetch("s3://b/" + std::to_string(i)));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the requests are in progress
  auto t0 = std::chrono::steady_clock::now();
  prefetcher.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
}

TEST(S3Prefetcher, DestructionFailsEveryUnfinishedReadWithCancelled) {
  if (!S3Client::available()) GTEST_SKIP() << "built without libcurl";
  SilentServer server;
  auto client = std::make_shared<S3Client>(silent_config(server, 60000, 10));
  auto prefetcher = std::make_unique<S3Prefetcher>(client, 300, 100);
  std::vector<std::shared_ptr<S3Prefetcher::Fetch>> fetches;  // 300 in flight, 300 queued
  for (int i = 0; i < 600; ++i) fetches.push_back(prefetcher->fetch("s3://b/" + std::to_string(i)));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto t0 = std::chrono::steady_clock::now();
  prefetcher.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
  S3Prefetcher other(client, 1, 100);  // wait() needs a prefetcher, not the one that made them
  for (int i : {0, 299, 300, 599}) {
    expect_error<Cancelled>([&] { other.wait(*fetches[i]); },
                            {"cannot read 's3://b/" + std::to_string(i) + "'", "cancelled"});
  }
}

TEST(S3Prefetcher, ManyRequestsRetryOnTimersAndFailNamingEachObject) {
  if (!S3Client::available()) GTEST_SKIP() << "built without libcurl";
  SilentServer server;
  auto client = std::make_shared<S3Client>(silent_config(server, 200, 3));
  S3Prefetcher prefetcher(client, 300, 100);
  std::vector<std::shared_ptr<S3Prefetcher::Fetch>> fetches;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 300; ++i) fetches.push_back(prefetcher.fetch("s3://b/" + std::to_string(i)));
  for (int i = 0; i < 300; ++i) {
    expect_error<IOError>([&] { prefetcher.wait(*fetches[i]); },
                          {"cannot read 's3://b/" + std::to_string(i) + "'", "after 3 attempts"});
  }
  // 300 requests at once, three attempts of 200 ms with their backoff: about a second.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
  EXPECT_EQ(client->retries(), 600);
  // Bad names fail on their own, without a request.
  expect_error<InvalidArgument>([&] { prefetcher.wait(*prefetcher.fetch("s3://b/dir/")); },
                                {"names a prefix"});
  EXPECT_TRUE(prefetcher.wait(*prefetcher.fetch("s3://b/k", 5, 0)).empty());
}

TEST(S3Prefetcher, StaysWithinTheDescriptorLimit) {
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &saved), 0);
  rlimit low = saved;
  low.rlim_cur = std::min<rlim_t>(256, saved.rlim_max);
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  {
    S3Prefetcher p(std::make_shared<S3Client>(S3Config{}), 1024, 100);
    EXPECT_EQ(p.connections(), static_cast<int>(low.rlim_cur / 2));
  }
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &saved), 0);
}

}  // namespace
}  // namespace sluice
