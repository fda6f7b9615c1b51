#include "sim/asic/isolated_run.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>

namespace normsim::asic {

int run_isolated(const std::function<std::string()>& work, const std::string& what, std::string& out) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error(what + ": pipe failed");
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(what + ": fork failed");
  if (pid == 0) {
    close(fds[0]);
    int rc = 0;
    try {
      const std::string text = work();
      size_t off = 0;
      while (off < text.size()) {
        const ssize_t n = write(fds[1], text.data() + off, text.size() - off);
        if (n <= 0) break;
        off += static_cast<size_t>(n);
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "normsim: %s: %s\n", what.c_str(), e.what());
      rc = 2;
    }
    close(fds[1]);
    _exit(rc);
  }
  close(fds[1]);
  std::string text;
  char buf[65536];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  out = std::move(text);
  return 0;
}

}  // namespace normsim::asic
