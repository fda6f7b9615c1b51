#include "progress.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace normsim::cli {

namespace {
constexpr auto kQuietFor = std::chrono::seconds(2);    // a command this short says nothing
constexpr auto kEvery = std::chrono::milliseconds(500);

void write_all(const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::write(STDERR_FILENO, s.data() + off, s.size() - off);
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
}
}  // namespace

ProgressLine& ProgressLine::get() {
  static ProgressLine p;
  return p;
}

bool ProgressLine::wanted(bool asked, bool quiet, bool json) { return asked || (!quiet && !json && isatty(STDERR_FILENO)); }

void ProgressLine::start(const std::string& command, bool on) {
  stop();
  on_ = on;
  status_.clear();
  command_ = command;
  if (!on) return;
  stopping_ = false;
  ticker_ = std::thread([this] { tick(); });
}

void ProgressLine::phase(const std::string& what, int64_t total, const std::string& unit) {
  std::lock_guard<std::mutex> l(mu_);
  phase_ = what;
  total_ = total;
  unit_ = unit;
  done_.store(0, std::memory_order_relaxed);
}

void ProgressLine::status(const std::string& text, bool show_now) {
  std::string now;
  {
    std::lock_guard<std::mutex> l(mu_);
    status_ = text;
    if (show_now && on_) now = line(0);
  }
  if (now.empty()) return;
  write_all(now);
  shown_ = true;
}

std::string ProgressLine::line(double s) {
  char buf[256];
  const int64_t done = done_.load(std::memory_order_relaxed);
  if (!status_.empty())
    std::snprintf(buf, sizeof buf, "%s: %s", command_.c_str(), status_.c_str());
  else if (total_ > 0)
    std::snprintf(buf, sizeof buf, "%s: %s: %lld/%lld %s (%.0f%%), %.0f s", command_.c_str(), phase_.c_str(),
                  static_cast<long long>(done), static_cast<long long>(total_), unit_.c_str(),
                  100.0 * static_cast<double>(done) / static_cast<double>(total_), s);
  else
    std::snprintf(buf, sizeof buf, "%s: %s%s%.0f s", command_.c_str(), phase_.c_str(), phase_.empty() ? "" : ", ", s);
  return std::string("\r") + buf + "\033[K";
}

void ProgressLine::tick() {
  const auto t0 = std::chrono::steady_clock::now();
  while (!stopping_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const auto now = std::chrono::steady_clock::now();
    if (now - t0 < kQuietFor) continue;
    std::string text;
    {
      std::lock_guard<std::mutex> l(mu_);
      text = line(std::chrono::duration<double>(now - t0).count());
    }
    write_all(text);
    shown_ = true;
    for (auto slept = std::chrono::milliseconds(0); slept < kEvery && !stopping_; slept += std::chrono::milliseconds(50))
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

void ProgressLine::finish() {
  if (!on_) return;
  stopping_ = true;
  if (ticker_.joinable()) ticker_.join();
  std::string text;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!status_.empty()) text = line(0) + "\n";
    else if (shown_) text = "\r\033[K";
  }
  write_all(text);
  shown_ = false;
  on_ = false;
}

void ProgressLine::stop() {
  if (!ticker_.joinable()) return;
  stopping_ = true;
  ticker_.join();
  if (shown_) write_all("\r\033[K");
  shown_ = false;
}

}  // namespace normsim::cli
