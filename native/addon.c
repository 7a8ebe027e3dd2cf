/*
 * woolrx's native addon: flock(2), one-byte OFD locks, and positioned reads
 * and writes, built against Node-API (ABI-stable), so one binary per
 * platform loads in every Node.js and Electron release that has Node-API 1
 * (all of them since Node 8.6), with no rebuild.
 *
 *   flock(fd: number, operation: number): number
 *
 * `operation` is LOCK_SH (1), LOCK_EX (2) or LOCK_UN (8), optionally ORed
 * with LOCK_NB (4) -- the Linux values, checked here, not passed blindly.
 * Returns 0 on success or the errno (EWOULDBLOCK, EBADF, ...) on failure:
 * a lock held elsewhere is an ordinary answer, not an exception. Retries on
 * EINTR. Throws a TypeError only for arguments of the wrong type.
 *
 * It must be flock(2) itself: wool's portalocker takes flock(2) locks, and
 * on Linux fcntl/OFD locks do not exclude them.
 *
 *   ofdlock(fd: number, operation: number, offset: number): number
 *
 * A one-byte open-file-description lock (fcntl F_OFD_*) at `offset`, which
 * on Linux neither excludes nor is excluded by flock(2) on the same file:
 * woolrx's publishers waiting for the namespace lock hold a shared one on
 * woolrx's lock file, so that the holder can see that someone waits.
 * `operation` 0 asks whether another open file description holds one (1:
 * yes, 0: no), 1 takes a shared one without waiting, 2 releases it (0 on
 * success). Returns the negated errno on failure; retries on EINTR.
 *
 *   pread(fd: number, into: Uint8Array, offset: number, length: number, position: number): number
 *   pwrite(fd: number, from: Uint8Array, offset: number, length: number, position: number): number
 *
 * pread(2) and pwrite(2) of `length` bytes at `offset` in the array, at
 * `position` in the file: the very system calls of fs.readSync and
 * fs.writeSync with a position, without the checks and objects Node.js
 * wraps around each (the local backend makes several per change, from code
 * that already knows its arguments). Returns the byte count, or the negated
 * errno; retries on EINTR. Throws a TypeError for arguments of the wrong
 * type or a range outside the array: never reads or writes past it.
 *
 *   statx(fd: number, path: string | null, into: Float64Array): number
 *
 * statx(2) of `path` (following links), or of `fd` when `path` is null,
 * into `into`: [dev, ino, nlink, size, mode, uid], dev as Node.js computes
 * it (makedev of the major and minor numbers), mode with the file type bits
 * as st_mode. The system call fs.statSync and fs.fstatSync make, without
 * the Stats object Node.js builds for each.
 * Returns 0, or the negated errno. The struct is the kernel's (stable
 * ABI), declared here because older musl headers lack it.
 */
#define _GNU_SOURCE
#define NAPI_VERSION 1
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <node_api.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    if ((call) != napi_ok) return NULL;                                        \
  } while (0)

static napi_value throw_type_error(napi_env env, const char *message) {
  napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", message);
  return NULL;
}

static napi_value woolrx_flock(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 2) return throw_type_error(env, "flock(fd, operation) takes two numbers");
  napi_valuetype type;
  int32_t fd;
  int32_t operation;
  CHECK(napi_typeof(env, argv[0], &type));
  if (type != napi_number) return throw_type_error(env, "flock: fd must be a number");
  CHECK(napi_typeof(env, argv[1], &type));
  if (type != napi_number) return throw_type_error(env, "flock: operation must be a number");
  CHECK(napi_get_value_int32(env, argv[0], &fd));
  CHECK(napi_get_value_int32(env, argv[1], &operation));
  int kind = operation & ~LOCK_NB;
  if (fd < 0 || (operation & ~(LOCK_SH | LOCK_EX | LOCK_UN | LOCK_NB)) != 0 ||
      (kind != LOCK_SH && kind != LOCK_EX && kind != LOCK_UN)) {
    return throw_type_error(env, "flock: fd must be >= 0 and operation one of LOCK_SH, LOCK_EX, LOCK_UN (| LOCK_NB)");
  }
  int result;
  do {
    result = flock(fd, operation);
  } while (result != 0 && errno == EINTR);
  napi_value answer;
  CHECK(napi_create_int32(env, result == 0 ? 0 : errno, &answer));
  return answer;
}

static napi_value woolrx_ofdlock(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 3) return throw_type_error(env, "ofdlock(fd, operation, offset) takes three numbers");
  int32_t values[3];
  for (int i = 0; i < 3; i += 1) {
    napi_valuetype type;
    CHECK(napi_typeof(env, argv[i], &type));
    if (type != napi_number) return throw_type_error(env, "ofdlock: fd, operation and offset must be numbers");
    CHECK(napi_get_value_int32(env, argv[i], &values[i]));
  }
  int32_t fd = values[0], operation = values[1], offset = values[2];
  if (fd < 0 || operation < 0 || operation > 2 || offset < 0) {
    return throw_type_error(env, "ofdlock: fd and offset must be >= 0 and operation 0 (query), 1 (share) or 2 (release)");
  }
  struct flock lock;
  memset(&lock, 0, sizeof lock);
  lock.l_whence = SEEK_SET;
  lock.l_start = offset;
  lock.l_len = 1;
  lock.l_type = operation == 0 ? F_WRLCK : operation == 1 ? F_RDLCK : F_UNLCK;
  int result;
  do {
    result = fcntl(fd, operation == 0 ? F_OFD_GETLK : F_OFD_SETLK, &lock);
  } while (result != 0 && errno == EINTR);
  int answer_value = result != 0 ? -errno : operation == 0 ? (lock.l_type != F_UNLCK) : 0;
  napi_value answer;
  CHECK(napi_create_int32(env, answer_value, &answer));
  return answer;
}

/* Largest position a double holds exactly (2^53), and what off_t can take. */
#define MAX_POSITION 9007199254740992.0

/* The arguments of pread/pwrite, checked; 0 when a TypeError was thrown. */
static int positioned_args(napi_env env, napi_callback_info info, const char *name, int32_t *fd, uint8_t **data,
                           size_t *length, off_t *position) {
  size_t argc = 5;
  napi_value argv[5];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return 0;
  int32_t offset, count;
  double at;
  bool is_typedarray = false;
  if (argc < 5 || napi_get_value_int32(env, argv[0], fd) != napi_ok ||
      napi_is_typedarray(env, argv[1], &is_typedarray) != napi_ok || !is_typedarray ||
      napi_get_value_int32(env, argv[2], &offset) != napi_ok ||
      napi_get_value_int32(env, argv[3], &count) != napi_ok ||
      napi_get_value_double(env, argv[4], &at) != napi_ok) {
    throw_type_error(env, name);
    return 0;
  }
  napi_typedarray_type type;
  size_t elements;
  void *base;
  if (napi_get_typedarray_info(env, argv[1], &type, &elements, &base, NULL, NULL) != napi_ok ||
      type != napi_uint8_array || *fd < 0 || offset < 0 || count < 0 || (size_t)offset + (size_t)count > elements ||
      !(at >= 0 && at <= MAX_POSITION) || at != (double)(int64_t)at) {
    throw_type_error(env, name);
    return 0;
  }
  *data = (uint8_t *)base + offset;
  *length = (size_t)count;
  *position = (off_t)at;
  return 1;
}

/* pread(2) or pwrite(2), as the arguments say. */
static napi_value positioned_io(napi_env env, napi_callback_info info, bool writing) {
  int32_t fd;
  uint8_t *data;
  size_t length;
  off_t position;
  const char *usage = writing ? "pwrite(fd, from, offset, length, position): a descriptor, a Uint8Array, a range "
                                "inside it and a position >= 0"
                              : "pread(fd, into, offset, length, position): a descriptor, a Uint8Array, a range "
                                "inside it and a position >= 0";
  if (!positioned_args(env, info, usage, &fd, &data, &length, &position)) return NULL;
  ssize_t result;
  do {
    result = writing ? pwrite(fd, data, length, position) : pread(fd, data, length, position);
  } while (result < 0 && errno == EINTR);
  napi_value answer;
  CHECK(napi_create_int32(env, result < 0 ? -errno : (int32_t)result, &answer));
  return answer;
}

static napi_value woolrx_pread(napi_env env, napi_callback_info info) { return positioned_io(env, info, false); }

static napi_value woolrx_pwrite(napi_env env, napi_callback_info info) { return positioned_io(env, info, true); }

/* The kernel's struct statx (include/uapi/linux/stat.h), 256 bytes. */
struct woolrx_statx {
  uint32_t mask, blksize;
  uint64_t attributes;
  uint32_t nlink, uid, gid;
  uint16_t mode, spare0;
  uint64_t ino, size, blocks, attributes_mask;
  uint8_t times[64];
  uint32_t rdev_major, rdev_minor, dev_major, dev_minor;
  uint64_t spare2[14];
};
_Static_assert(sizeof(struct woolrx_statx) == 256, "struct statx is 256 bytes");
_Static_assert(offsetof(struct woolrx_statx, ino) == 32, "stx_ino at 32");
_Static_assert(offsetof(struct woolrx_statx, dev_major) == 136, "stx_dev_major at 136");

#define WOOLRX_AT_EMPTY_PATH 0x1000
/* The basic fields every filesystem fills (generic_fillattr): asked for, not checked in the mask. */
#define WOOLRX_STATX_TYPE 0x1U
#define WOOLRX_STATX_MODE 0x2U
#define WOOLRX_STATX_NLINK 0x4U
#define WOOLRX_STATX_UID 0x8U
#define WOOLRX_STATX_INO 0x100U
#define WOOLRX_STATX_SIZE 0x200U
#define WOOLRX_STATX_WANTED \
  (WOOLRX_STATX_TYPE | WOOLRX_STATX_MODE | WOOLRX_STATX_NLINK | WOOLRX_STATX_UID | WOOLRX_STATX_INO | WOOLRX_STATX_SIZE)

static napi_value woolrx_statx(napi_env env, napi_callback_info info) {
  static const char *usage = "statx(fd, path, into): a descriptor, a path or null, and a Float64Array of 6";
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t fd;
  napi_valuetype path_type;
  bool is_typedarray = false;
  if (argc < 3 || napi_get_value_int32(env, argv[0], &fd) != napi_ok ||
      napi_typeof(env, argv[1], &path_type) != napi_ok || (path_type != napi_string && path_type != napi_null) ||
      napi_is_typedarray(env, argv[2], &is_typedarray) != napi_ok || !is_typedarray) {
    return throw_type_error(env, usage);
  }
  napi_typedarray_type type;
  size_t elements;
  void *base;
  CHECK(napi_get_typedarray_info(env, argv[2], &type, &elements, &base, NULL, NULL));
  if (type != napi_float64_array || elements < 6 || (path_type == napi_null && fd < 0)) {
    return throw_type_error(env, usage);
  }
  char path[4096];
  size_t length = 0;
  if (path_type == napi_string) {
    CHECK(napi_get_value_string_utf8(env, argv[1], path, sizeof path, &length));
    if (length == 0 || length >= sizeof path - 1) return throw_type_error(env, "statx: the path is empty or too long");
  } else {
    path[0] = '\0';
  }
  struct woolrx_statx result;
  long status;
  do {
    status = path_type == napi_string
                 ? syscall(SYS_statx, AT_FDCWD, path, 0, WOOLRX_STATX_WANTED, &result)
                 : syscall(SYS_statx, fd, path, WOOLRX_AT_EMPTY_PATH, WOOLRX_STATX_WANTED, &result);
  } while (status != 0 && errno == EINTR);
  napi_value answer;
  if (status != 0) {
    CHECK(napi_create_int32(env, -errno, &answer));
    return answer;
  }
  double *into = (double *)base;
  into[0] = (double)makedev(result.dev_major, result.dev_minor);
  into[1] = (double)result.ino;
  into[2] = (double)result.nlink;
  into[3] = (double)result.size;
  into[4] = (double)result.mode;
  into[5] = (double)result.uid;
  CHECK(napi_create_int32(env, 0, &answer));
  return answer;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  CHECK(napi_create_function(env, "flock", NAPI_AUTO_LENGTH, woolrx_flock, NULL, &fn));
  CHECK(napi_set_named_property(env, exports, "flock", fn));
  CHECK(napi_create_function(env, "ofdlock", NAPI_AUTO_LENGTH, woolrx_ofdlock, NULL, &fn));
  CHECK(napi_set_named_property(env, exports, "ofdlock", fn));
  CHECK(napi_create_function(env, "pread", NAPI_AUTO_LENGTH, woolrx_pread, NULL, &fn));
  CHECK(napi_set_named_property(env, exports, "pread", fn));
  CHECK(napi_create_function(env, "pwrite", NAPI_AUTO_LENGTH, woolrx_pwrite, NULL, &fn));
  CHECK(napi_set_named_property(env, exports, "pwrite", fn));
  CHECK(napi_create_function(env, "statx", NAPI_AUTO_LENGTH, woolrx_statx, NULL, &fn));
  CHECK(napi_set_named_property(env, exports, "statx", fn));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
