// The native limit: simdjson validating bytes where they lie, with one parser reused, behind N-API.
//
// The npm simdjson package's isValid takes a JS string, copies it out to
// UTF-8 and builds a fresh dom::parser per call. This binding is what a
// native caller holding bytes would write instead: the bytes stay in their
// Uint8Array (which the caller allocates with SIMDJSON_PADDING spare bytes
// past the end, so simdjson reads them in place without a copy), and one
// dom::parser, kept for the life of the process, grows once to the largest
// input and is reused. It answers valid or not; simdjson builds its DOM
// tape on the way, which is the work its validation is.

#include <node_api.h>

#include "simdjson.h"

namespace {

simdjson::dom::parser *parser = nullptr;

napi_value fail(napi_env env, const char *message) {
  napi_throw_type_error(env, nullptr, message);
  return nullptr;
}

// isValid(bytes: Uint8Array, length: number): boolean
// `length` bytes of JSON at the start of `bytes`, which must have at least
// padding() bytes more.
napi_value isValid(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok || argc < 2) return fail(env, "isValid(bytes, length)");
  bool typed = false;
  napi_is_typedarray(env, argv[0], &typed);
  if (!typed) return fail(env, "isValid: bytes must be a Uint8Array");
  napi_typedarray_type type;
  size_t size = 0;
  void *data = nullptr;
  if (napi_get_typedarray_info(env, argv[0], &type, &size, &data, nullptr, nullptr) != napi_ok || type != napi_uint8_array)
    return fail(env, "isValid: bytes must be a Uint8Array");
  int64_t length = 0;
  if (napi_get_value_int64(env, argv[1], &length) != napi_ok || length < 0 || size_t(length) + simdjson::SIMDJSON_PADDING > size)
    return fail(env, "isValid: length must leave padding() spare bytes in bytes");
  if (parser == nullptr) parser = new simdjson::dom::parser();
  auto error = parser->parse(static_cast<const uint8_t *>(data), size_t(length), false).error();
  napi_value result;
  napi_get_boolean(env, error == simdjson::SUCCESS, &result);
  return result;
}

// padding(): the spare bytes isValid needs past the end of the JSON.
napi_value padding(napi_env env, napi_callback_info) {
  napi_value result;
  napi_create_uint32(env, uint32_t(simdjson::SIMDJSON_PADDING), &result);
  return result;
}

// kernel(): the name of the simdjson implementation this CPU runs (haswell, westmere, fallback, ...).
napi_value kernel(napi_env env, napi_callback_info) {
  const std::string &name = simdjson::active_implementation->name();
  napi_value result;
  napi_create_string_utf8(env, name.c_str(), name.size(), &result);
  return result;
}

// version(): simdjson's version string.
napi_value version(napi_env env, napi_callback_info) {
  const std::string text = std::to_string(int(simdjson::SIMDJSON_VERSION_MAJOR)) + "." + std::to_string(int(simdjson::SIMDJSON_VERSION_MINOR)) +
                           "." + std::to_string(int(simdjson::SIMDJSON_VERSION_REVISION));
  napi_value result;
  napi_create_string_utf8(env, text.c_str(), text.size(), &result);
  return result;
}

napi_value init(napi_env env, napi_value exports) {
  const napi_property_descriptor properties[] = {
      {"isValid", nullptr, isValid, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"padding", nullptr, padding, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"kernel", nullptr, kernel, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"version", nullptr, version, nullptr, nullptr, nullptr, napi_default, nullptr},
  };
  napi_define_properties(env, exports, sizeof(properties) / sizeof(properties[0]), properties);
  return exports;
}

}  // namespace

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
