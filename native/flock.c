/*
 * woolrx's flock(2) addon: one function, `flock(fd, operation)`, built
 * against Node-API (ABI-stable), so one binary per platform loads in every
 * Node.js and Electron release that has Node-API 1 (all of them since
 * Node 8.6), with no rebuild.
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
 */
#define NAPI_VERSION 1
#include <errno.h>
#include <sys/file.h>
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

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  CHECK(napi_create_function(env, "flock", NAPI_AUTO_LENGTH, woolrx_flock, NULL, &fn));
  CHECK(napi_set_named_property(env, exports, "flock", fn));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
