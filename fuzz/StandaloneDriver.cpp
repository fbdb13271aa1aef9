//===- StandaloneDriver.cpp - A mutation driver for the fuzz targets ------===//
//
// Part of the Jeet project.
//
// Runs a libFuzzer target (LLVMFuzzerTestOneInput) where libFuzzer is not
// linked: in the ordinary (gcc) build, so that `make test` runs every fuzz
// target for a few seconds without a second, clang-built copy of the
// compiler. It replays the corpus, then mutates corpus entries (bit flips,
// byte and range edits, splices, dictionary tokens, interesting numbers) until
// a time or run budget is spent. The mutations are drawn from a seeded
// generator, so a run is replayed exactly by its seed. It takes the flags of
// libFuzzer that the project uses (-runs, -max_total_time, -max_len, -seed,
// -timeout, -dict, -artifact_prefix) and ignores the others.
//
// A crash (a signal: SIGSEGV, SIGABRT from an assertion or a fatal LLVM
// error, SIGFPE, SIGBUS, SIGILL) or an input running over -timeout writes the
// input to <artifact_prefix>crash-<seed>-<n> (or timeout-...) and ends the
// process with the signal, so the calling test fails and names the file.
//
// This driver finds far less than libFuzzer's coverage-guided search; the
// long runs (`make fuzz`) use libFuzzer with the clang build in build-fuzz/.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int *argc,
                                                          char ***argv);

namespace {

using Bytes = std::vector<uint8_t>;

struct Options {
  int64_t runs = -1;        ///< Mutated inputs to run; -1: no limit.
  double maxTotalTime = 10; ///< Seconds for the mutation phase.
  size_t maxLen = 8192;     ///< Longest mutated input.
  uint64_t seed = 0;        ///< 0: from the clock (printed).
  unsigned timeout = 20;    ///< Seconds one input may take.
  std::string artifactPrefix = "./";
  std::vector<std::string> dictFiles;
  std::vector<std::string> inputs; ///< Corpus files and directories.
};

// The input being run, for the crash handler (which may only use
// async-signal-safe calls).
const uint8_t *gCurrentData = nullptr;
size_t gCurrentSize = 0;
char gArtifactPath[4096];
char gTimeoutPath[4096];

void writeArtifact(const char *path, const char *what) {
  int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    size_t done = 0;
    while (gCurrentData && done < gCurrentSize) {
      ssize_t n = ::write(fd, gCurrentData + done, gCurrentSize - done);
      if (n <= 0)
        break;
      done += static_cast<size_t>(n);
    }
    ::close(fd);
  }
  const char *lines[] = {"\n==jeet-fuzz== ", what, "; input written to ", path,
                         "\n"};
  for (const char *line : lines)
    if (::write(2, line, std::strlen(line)) < 0)
      break;
}

void onCrash(int signal) {
  writeArtifact(gArtifactPath, "crash");
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

void onTimeout(int) {
  writeArtifact(gTimeoutPath, "timeout");
  std::signal(SIGABRT, SIG_DFL);
  std::abort();
}

void installHandlers() {
  // A stack of its own, so that a stack overflow is reported too.
  static std::vector<char> altStack(1 << 16);
  stack_t stack = {};
  stack.ss_sp = altStack.data();
  stack.ss_size = altStack.size();
  sigaltstack(&stack, nullptr);
  for (int signal : {SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL}) {
    struct sigaction action = {};
    action.sa_handler = onCrash;
    action.sa_flags = SA_ONSTACK;
    sigaction(signal, &action, nullptr);
  }
  struct sigaction action = {};
  action.sa_handler = onTimeout;
  sigaction(SIGALRM, &action, nullptr);
}

bool readFile(const std::string &path, Bytes &out) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return false;
  out.assign(std::istreambuf_iterator<char>(file), {});
  return true;
}

void collectInputs(const std::string &path, std::vector<Bytes> &corpus) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) {
    std::fprintf(stderr, "jeet-fuzz: cannot read '%s'\n", path.c_str());
    std::exit(2);
  }
  if (!S_ISDIR(info.st_mode)) {
    Bytes bytes;
    if (readFile(path, bytes))
      corpus.push_back(std::move(bytes));
    return;
  }
  std::vector<std::string> names;
  if (DIR *dir = ::opendir(path.c_str())) {
    while (dirent *entry = ::readdir(dir))
      if (entry->d_name[0] != '.')
        names.push_back(entry->d_name);
    ::closedir(dir);
  }
  std::sort(names.begin(), names.end()); // Runs replay in a fixed order.
  for (const std::string &name : names)
    collectInputs(path + "/" + name, corpus);
}

/// Reads libFuzzer dictionary lines: `name="token"` or `"token"`, with \\, \"
/// and \xAB escapes.
void readDictionary(const std::string &path, std::vector<Bytes> &tokens) {
  std::ifstream file(path);
  std::string line;
  while (std::getline(file, line)) {
    size_t open = line.find('"'), close = line.rfind('"');
    if (line.empty() || line[0] == '#' || open == std::string::npos ||
        close <= open)
      continue;
    Bytes token;
    for (size_t i = open + 1; i < close; ++i) {
      if (line[i] == '\\' && i + 1 < close) {
        char next = line[++i];
        if (next == 'x' && i + 2 < close) {
          token.push_back(static_cast<uint8_t>(
              std::strtol(line.substr(i + 1, 2).c_str(), nullptr, 16)));
          i += 2;
        } else {
          token.push_back(static_cast<uint8_t>(next));
        }
      } else {
        token.push_back(static_cast<uint8_t>(line[i]));
      }
    }
    if (!token.empty())
      tokens.push_back(std::move(token));
  }
}

/// Numbers that find overflow, sign and boundary bugs in sizes and values.
const char *const kInterestingNumbers[] = {"0",
                                           "1",
                                           "-1",
                                           "2",
                                           "3",
                                           "7",
                                           "31",
                                           "32",
                                           "33",
                                           "64",
                                           "127",
                                           "128",
                                           "255",
                                           "256",
                                           "65535",
                                           "65536",
                                           "2147483647",
                                           "2147483648",
                                           "-2147483648",
                                           "4294967295",
                                           "4294967296",
                                           "1e10",
                                           "-1e10",
                                           "1e39",
                                           "nan",
                                           "inf",
                                           "-inf",
                                           "0x7FC00000",
                                           "9223372036854775807",
                                           "9223372036854775808",
                                           "-9223372036854775808",
                                           "18446744073709551615",
                                           "4611686018427387904",
                                           "1152921504606846976"};

class Mutator {
public:
  Mutator(uint64_t seed, const std::vector<Bytes> &corpus,
          const std::vector<Bytes> &dictionary, size_t maxLen)
      : rng_(seed), corpus_(corpus), dictionary_(dictionary), maxLen_(maxLen) {}

  Bytes next() {
    Bytes data = corpus_.empty() ? Bytes() : corpus_[pick(corpus_.size())];
    int edits = 1 + static_cast<int>(pick(4));
    for (int i = 0; i < edits; ++i)
      mutate(data);
    if (data.size() > maxLen_)
      data.resize(maxLen_);
    return data;
  }

private:
  size_t pick(size_t n) { return n ? rng_() % n : 0; }

  void insert(Bytes &data, size_t at, const uint8_t *begin, size_t size) {
    data.insert(data.begin() + at, begin, begin + size);
  }

  /// Finds the decimal number around a random position, as [begin, end).
  bool findNumber(const Bytes &data, size_t &begin, size_t &end) {
    if (data.empty())
      return false;
    for (size_t tries = 0; tries < 8; ++tries) {
      size_t at = pick(data.size());
      if (!std::isdigit(data[at]))
        continue;
      begin = end = at;
      while (begin > 0 && std::isdigit(data[begin - 1]))
        --begin;
      while (end < data.size() && std::isdigit(data[end]))
        ++end;
      return true;
    }
    return false;
  }

  void mutate(Bytes &data) {
    size_t size = data.size();
    switch (pick(10)) {
    case 0: // Flip a bit.
      if (size)
        data[pick(size)] ^= static_cast<uint8_t>(1u << pick(8));
      break;
    case 1: { // Set a byte to a boundary or random value.
      static const uint8_t values[] = {0, 1, 0x7f, 0x80, 0xff, ' ', '\n'};
      if (size)
        data[pick(size)] = pick(2) ? values[pick(sizeof(values))]
                                   : static_cast<uint8_t>(rng_());
      break;
    }
    case 2: { // Insert random bytes.
      uint8_t bytes[4];
      size_t n = 1 + pick(4);
      for (size_t i = 0; i < n; ++i)
        bytes[i] = static_cast<uint8_t>(rng_());
      insert(data, pick(size + 1), bytes, n);
      break;
    }
    case 3: { // Erase a range.
      if (!size)
        break;
      size_t at = pick(size), n = 1 + pick(std::min<size_t>(size - at, 64));
      data.erase(data.begin() + at, data.begin() + at + n);
      break;
    }
    case 4: { // Duplicate a range.
      if (!size)
        break;
      size_t at = pick(size), n = 1 + pick(std::min<size_t>(size - at, 128));
      Bytes copy(data.begin() + at, data.begin() + at + n);
      insert(data, pick(size + 1), copy.data(), copy.size());
      break;
    }
    case 5: { // Splice a range of another corpus entry.
      if (corpus_.empty())
        break;
      const Bytes &other = corpus_[pick(corpus_.size())];
      if (other.empty())
        break;
      size_t at = pick(other.size());
      size_t n = 1 + pick(std::min<size_t>(other.size() - at, 256));
      insert(data, pick(size + 1), other.data() + at, n);
      break;
    }
    case 6:
    case 7: { // Insert or overwrite with a dictionary token.
      if (dictionary_.empty())
        break;
      const Bytes &token = dictionary_[pick(dictionary_.size())];
      size_t at = pick(size + 1);
      if (pick(2) && at + token.size() <= size)
        std::copy(token.begin(), token.end(), data.begin() + at);
      else
        insert(data, at, token.data(), token.size());
      break;
    }
    default: { // Replace a number with an interesting one.
      size_t begin, end;
      const char *number =
          kInterestingNumbers[pick(std::size(kInterestingNumbers))];
      if (!findNumber(data, begin, end)) {
        insert(data, pick(size + 1), reinterpret_cast<const uint8_t *>(number),
               std::strlen(number));
        break;
      }
      data.erase(data.begin() + begin, data.begin() + end);
      insert(data, begin, reinterpret_cast<const uint8_t *>(number),
             std::strlen(number));
      break;
    }
    }
  }

  std::mt19937_64 rng_;
  const std::vector<Bytes> &corpus_;
  const std::vector<Bytes> &dictionary_;
  size_t maxLen_;
};

Options parseOptions(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *flag) -> const char * {
      size_t n = std::strlen(flag);
      return arg.compare(0, n, flag) == 0 ? arg.c_str() + n : nullptr;
    };
    if (const char *v = value("-runs="))
      options.runs = std::atoll(v);
    else if (const char *v = value("-max_total_time="))
      options.maxTotalTime = std::atof(v);
    else if (const char *v = value("-max_len="))
      options.maxLen = std::strtoull(v, nullptr, 10);
    else if (const char *v = value("-seed="))
      options.seed = std::strtoull(v, nullptr, 10);
    else if (const char *v = value("-timeout="))
      options.timeout = static_cast<unsigned>(std::atoi(v));
    else if (const char *v = value("-dict="))
      options.dictFiles.push_back(v);
    else if (const char *v = value("-artifact_prefix="))
      options.artifactPrefix = v;
    else if (arg.size() > 1 && arg[0] == '-')
      continue; // Another libFuzzer flag: not ours to interpret.
    else
      options.inputs.push_back(arg);
  }
  return options;
}

void runOne(const Bytes &input, unsigned timeout) {
  // libFuzzer hands targets a buffer of exactly the input's size; a copy of
  // that size keeps reads past the end visible to sanitizers.
  std::unique_ptr<uint8_t[]> copy(new uint8_t[input.size() + (input.empty())]);
  std::memcpy(copy.get(), input.data(), input.size());
  gCurrentData = copy.get();
  gCurrentSize = input.size();
  alarm(timeout);
  LLVMFuzzerTestOneInput(copy.get(), input.size());
  alarm(0);
  gCurrentData = nullptr;
}

} // namespace

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  Options options = parseOptions(argc, argv);
  if (!options.seed)
    options.seed = static_cast<uint64_t>(
        std::chrono::system_clock::now().time_since_epoch().count());

  std::vector<Bytes> corpus, dictionary;
  for (const std::string &path : options.inputs)
    collectInputs(path, corpus);
  for (const std::string &path : options.dictFiles)
    readDictionary(path, dictionary);

  installHandlers();
  std::printf("jeet-fuzz: %s: seed %llu (replay with -seed=%llu), %zu corpus "
              "inputs, %zu dictionary tokens\n",
              argv[0], static_cast<unsigned long long>(options.seed),
              static_cast<unsigned long long>(options.seed), corpus.size(),
              dictionary.size());
  std::fflush(stdout);

  auto start = std::chrono::steady_clock::now();
  size_t index = 0;
  for (const Bytes &input : corpus) {
    std::snprintf(gArtifactPath, sizeof(gArtifactPath), "%scrash-corpus-%zu",
                  options.artifactPrefix.c_str(), index);
    std::snprintf(gTimeoutPath, sizeof(gTimeoutPath), "%stimeout-corpus-%zu",
                  options.artifactPrefix.c_str(), index++);
    runOne(input, options.timeout);
  }

  Mutator mutator(options.seed, corpus, dictionary, options.maxLen);
  int64_t runs = 0;
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  while ((options.runs < 0 || runs < options.runs) &&
         (options.runs >= 0 || elapsed() < options.maxTotalTime)) {
    Bytes input = mutator.next();
    std::snprintf(gArtifactPath, sizeof(gArtifactPath), "%scrash-%llu-%lld",
                  options.artifactPrefix.c_str(),
                  static_cast<unsigned long long>(options.seed),
                  static_cast<long long>(runs));
    std::snprintf(gTimeoutPath, sizeof(gTimeoutPath), "%stimeout-%llu-%lld",
                  options.artifactPrefix.c_str(),
                  static_cast<unsigned long long>(options.seed),
                  static_cast<long long>(runs));
    runOne(input, options.timeout);
    ++runs;
  }
  std::printf("jeet-fuzz: %zu corpus inputs and %lld mutated inputs in %.1f "
              "s, no crash\n",
              corpus.size(), static_cast<long long>(runs), elapsed());
  return 0;
}
