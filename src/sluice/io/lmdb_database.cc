#include "sluice/io/lmdb_database.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>

#include "sluice/core/error.h"

#ifdef SLUICE_HAS_LMDB
#include <lmdb.h>
#endif

namespace sluice {

#ifdef SLUICE_HAS_LMDB

bool lmdb_available() {
  return true;
}

namespace {

void check(int rc, const std::string& path, const char* what) {
  if (rc != MDB_SUCCESS) {
    throw IOError(make_string("LMDB '", path, "': ", what, ": ", mdb_strerror(rc)));
  }
}

struct Db {
  std::string path;
  MDB_env* env = nullptr;
  MDB_dbi dbi = 0;
  std::string keys;              // all keys, back to back
  std::vector<uint64_t> key_at;  // start of key k in `keys`, then the end
};

}  // namespace

struct LmdbDatabases::Impl {
  std::vector<Db> dbs;
  std::vector<int64_t> starts{0};

  ~Impl() {
    for (Db& d : dbs) {
      if (d.env != nullptr) mdb_env_close(d.env);
    }
  }

  // The database of record `index` and the record's key there.
  std::pair<const Db*, std::string_view> key(int64_t index) const {
    SLUICE_CHECK(index >= 0 && index < starts.back(), InvalidArgument, "LMDB record ", index,
                 " out of range (", starts.back(), " records)");
    auto it = std::upper_bound(starts.begin(), starts.end(), index);
    const Db& d = dbs[static_cast<size_t>(it - starts.begin()) - 1];
    const size_t k = static_cast<size_t>(index - *(it - 1));
    return {&d, std::string_view(d.keys).substr(d.key_at[k], d.key_at[k + 1] - d.key_at[k])};
  }
};

LmdbDatabases::LmdbDatabases(std::vector<std::string> paths) : impl_(std::make_unique<Impl>()) {
  SLUICE_CHECK(!paths.empty(), InvalidArgument, "no LMDB databases given (`path`)");
  for (std::string& path : paths) {
    Db& d = impl_->dbs.emplace_back();
    d.path = std::move(path);
    struct stat st;
    if (::stat(d.path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      throw IOError(make_string("LMDB '", d.path, "': not a database folder"));
    }
    check(mdb_env_create(&d.env), d.path, "create");
    check(mdb_env_open(d.env, d.path.c_str(), MDB_RDONLY | MDB_NOLOCK | MDB_NOTLS, 0664), d.path,
          "open");
    MDB_txn* txn = nullptr;
    check(mdb_txn_begin(d.env, nullptr, MDB_RDONLY, &txn), d.path, "begin");
    MDB_cursor* cur = nullptr;
    int rc = mdb_dbi_open(txn, nullptr, 0, &d.dbi);
    if (rc == MDB_SUCCESS) rc = mdb_cursor_open(txn, d.dbi, &cur);
    MDB_val k, v;
    d.key_at.push_back(0);
    for (int op = MDB_FIRST; rc == MDB_SUCCESS; op = MDB_NEXT) {
      rc = mdb_cursor_get(cur, &k, &v, static_cast<MDB_cursor_op>(op));
      if (rc != MDB_SUCCESS) break;
      d.keys.append(static_cast<const char*>(k.mv_data), k.mv_size);
      d.key_at.push_back(d.keys.size());
    }
    if (cur != nullptr) mdb_cursor_close(cur);
    if (rc != MDB_NOTFOUND) {
      mdb_txn_abort(txn);
      check(rc, d.path, "list the keys");
    }
    check(mdb_txn_commit(txn), d.path, "commit");  // keeps the dbi handle open
    impl_->starts.push_back(impl_->starts.back() + static_cast<int64_t>(d.key_at.size()) - 1);
  }
}

LmdbDatabases::~LmdbDatabases() = default;

int64_t LmdbDatabases::size() const {
  return impl_->starts.back();
}

std::string LmdbDatabases::source(int64_t index) const {
  auto [d, key] = impl_->key(index);
  return make_string(d->path, " at key ", key);
}

void LmdbDatabases::read(int64_t index, std::vector<uint8_t>& out) const {
  auto [d, key] = impl_->key(index);
  MDB_txn* txn = nullptr;
  check(mdb_txn_begin(d->env, nullptr, MDB_RDONLY, &txn), d->path, "begin");
  MDB_val k{key.size(), const_cast<char*>(key.data())}, v;
  int rc = mdb_get(txn, d->dbi, &k, &v);
  if (rc == MDB_SUCCESS) {
    const auto* p = static_cast<const uint8_t*>(v.mv_data);
    out.assign(p, p + v.mv_size);
  }
  mdb_txn_abort(txn);
  if (rc != MDB_SUCCESS) {
    throw IOError(make_string("LMDB '", d->path, "' at key ", key, ": ", mdb_strerror(rc)));
  }
}

void write_lmdb(const std::string& path,
                const std::vector<std::pair<std::string, std::string>>& records) {
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    throw IOError(make_string("cannot make '", path, "'"));
  }
  MDB_env* env = nullptr;
  check(mdb_env_create(&env), path, "create");
  struct Closer {
    MDB_env* e;
    ~Closer() { mdb_env_close(e); }
  } closer{env};
  check(mdb_env_set_mapsize(env, size_t{1} << 30), path, "set map size");
  check(mdb_env_open(env, path.c_str(), 0, 0664), path, "open");
  MDB_txn* txn = nullptr;
  check(mdb_txn_begin(env, nullptr, 0, &txn), path, "begin");
  MDB_dbi dbi;
  int rc = mdb_dbi_open(txn, nullptr, 0, &dbi);
  for (size_t i = 0; rc == MDB_SUCCESS && i < records.size(); ++i) {
    MDB_val k{records[i].first.size(), const_cast<char*>(records[i].first.data())};
    MDB_val v{records[i].second.size(), const_cast<char*>(records[i].second.data())};
    rc = mdb_put(txn, dbi, &k, &v, 0);
  }
  if (rc != MDB_SUCCESS) mdb_txn_abort(txn);
  check(rc, path, "write");
  check(mdb_txn_commit(txn), path, "commit");
}

#else  // !SLUICE_HAS_LMDB

bool lmdb_available() {
  return false;
}

namespace {
[[noreturn]] void no_lmdb() {
  throw NotImplemented(
      "this build of Sluice has no LMDB support: install liblmdb-dev (Debian/Ubuntu) or lmdb "
      "and rebuild");
}
}  // namespace

struct LmdbDatabases::Impl {};
LmdbDatabases::LmdbDatabases(std::vector<std::string>) {
  no_lmdb();
}
LmdbDatabases::~LmdbDatabases() = default;
int64_t LmdbDatabases::size() const {
  return 0;
}
std::string LmdbDatabases::source(int64_t) const {
  no_lmdb();
}
void LmdbDatabases::read(int64_t, std::vector<uint8_t>&) const {
  no_lmdb();
}
void write_lmdb(const std::string&, const std::vector<std::pair<std::string, std::string>>&) {
  no_lmdb();
}

#endif

}  // namespace sluice
