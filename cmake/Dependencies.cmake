# Every dependency is a Debian 12 package. A missing one stops configuration
# with one line naming the package to install (scripts/deps.txt lists them all).

function(spillway_require_header header package)
  find_path(_found_${package} ${header})
  if(NOT _found_${package})
    message(FATAL_ERROR "missing dependency: apt-get install ${package}  (no ${header})")
  endif()
endfunction()

function(spillway_require_library lib package)
  find_library(_found_lib_${lib} ${lib})
  if(NOT _found_lib_${lib})
    message(FATAL_ERROR "missing dependency: apt-get install ${package}  (no lib${lib})")
  endif()
endfunction()

find_package(Threads REQUIRED)

spillway_require_header(asio.hpp libasio-dev)
add_library(spillway_asio INTERFACE)
# ASIO_DISABLE_STD_ALIGNED_ALLOC: asio decides between aligned_alloc/free and
# operator new/delete from _GLIBCXX_HAVE_ALIGNED_ALLOC, which is only defined
# once a libstdc++ header came first. Translation units with a different
# include order then disagree (memory from `operator new` released with
# `free`; ASan reports alloc-dealloc-mismatch). Fixing the choice makes every
# unit agree, and routes asio's allocations through the one counting
# operator new (common/alloc_count) like everything else.
target_compile_definitions(spillway_asio INTERFACE ASIO_STANDALONE ASIO_NO_DEPRECATED
                                                   ASIO_DISABLE_STD_ALIGNED_ALLOC)
target_link_libraries(spillway_asio INTERFACE Threads::Threads)

spillway_require_header(liburing.h liburing-dev)
spillway_require_library(uring liburing-dev)
spillway_require_header(zstd.h libzstd-dev)
spillway_require_library(zstd libzstd-dev)
# The other Kafka batch codecs: gzip (zlib), snappy, lz4 (frame format).
spillway_require_header(zlib.h zlib1g-dev)
spillway_require_library(z zlib1g-dev)
spillway_require_header(snappy-c.h libsnappy-dev)
spillway_require_library(snappy libsnappy-dev)
spillway_require_header(lz4frame.h liblz4-dev)
spillway_require_library(lz4 liblz4-dev)

# TLS (asio::ssl) and the SASL/SCRAM primitives (PBKDF2, HMAC, SHA-2).
find_package(OpenSSL 3 QUIET)
if(NOT OpenSSL_FOUND)
  message(FATAL_ERROR "missing dependency: apt-get install libssl-dev")
endif()

# The etcd client's JSON (broker/cluster/etcd/: etcd's HTTP/JSON gateway).
find_package(nlohmann_json 3 QUIET)
if(NOT nlohmann_json_FOUND)
  message(FATAL_ERROR "missing dependency: apt-get install nlohmann-json3-dev")
endif()

find_package(spdlog QUIET)
if(NOT spdlog_FOUND)
  message(FATAL_ERROR "missing dependency: apt-get install libspdlog-dev")
endif()

if(NOT SPILLWAY_FUZZ_ONLY)
  spillway_require_header(toml++/toml.h libtomlplusplus-dev)
  find_package(tomlplusplus QUIET)
  spillway_require_header(CLI/CLI.hpp libcli11-dev)
  if(SPILLWAY_BUILD_TESTS)
    find_package(GTest QUIET)
    if(NOT GTest_FOUND)
      message(FATAL_ERROR "missing dependency: apt-get install libgtest-dev libgmock-dev")
    endif()
  endif()
  if(SPILLWAY_BUILD_BENCH)
    find_package(benchmark QUIET)
    if(NOT benchmark_FOUND)
      message(FATAL_ERROR "missing dependency: apt-get install libbenchmark-dev")
    endif()
  endif()
endif()
