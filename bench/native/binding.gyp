# The native limit for the benchmarks: simdjson's own C++ (the sources the
# npm simdjson package ships), behind a minimal N-API binding of ours.
{
  "targets": [
    {
      "target_name": "simdjson_limit",
      "default_configuration": "Release",
      "sources": ["limit.cc", "../../node_modules/simdjson/simdjson/src/simdjson.cpp"],
      "include_dirs": ["../../node_modules/simdjson/simdjson/src"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-std=gnu++1y", "-std=gnu++17", "-O2"],
      "cflags_cc+": ["-O3", "-std=c++17"],
      "xcode_settings": {
        "OTHER_CPLUSPLUSFLAGS": ["-std=c++17", "-O3"],
        "GCC_ENABLE_CPP_EXCEPTIONS": "YES"
      },
      "msvs_settings": { "VCCLCompilerTool": { "AdditionalOptions": ["/std:c++17", "/O2"] } }
    }
  ]
}
