#include "sim/asic/isolated_run.hpp"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "sim/asic/error_line.hpp"
#include "sim/config/printable.hpp"

namespace normsim::asic {

namespace {
struct Child {
  pid_t pid = -1;
  int fd = -1;  ///< the read end of its pipe
};

// Forks a child that runs `work` and writes what it returns into a pipe.
Child start_child(const std::function<std::string()>& work, const std::string& what) {
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
    } catch (...) {
      const ErrorLine line = error_line(std::current_exception(), what);
      if (line.names_what) std::fprintf(stderr, "normsim: %s\n", line.text.c_str());
      else std::fprintf(stderr, "normsim: %s: %s\n", config::printable(what).c_str(), line.text.c_str());
      rc = line.exit_code;
    }
    close(fds[1]);
    _exit(rc);
  }
  close(fds[1]);
  return {pid, fds[0]};
}

// The child's exit code: 0, its own, or 1 when it died of a signal.
int reap(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status)) return 1;
  return WEXITSTATUS(status);
}
}  // namespace

int run_isolated(const std::function<std::string()>& work, const std::string& what, std::string& out) {
  const Child c = start_child(work, what);
  std::string text;
  char buf[65536];
  ssize_t n;
  while ((n = read(c.fd, buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  close(c.fd);
  if (int rc = reap(c.pid)) return rc;
  out = std::move(text);
  return 0;
}

void run_isolated_pool(size_t n, int jobs, const std::function<std::string(size_t)>& work,
                       const std::function<std::string(size_t)>& what,
                       const std::function<void(size_t, int, std::string&&)>& done) {
  struct Running {
    size_t index;
    Child child;
    std::string text;
  };
  std::vector<Running> running;
  size_t next = 0;
  const size_t width = static_cast<size_t>(std::max(1, jobs));
  std::vector<char> buf(65536);
  while (next < n || !running.empty()) {
    while (next < n && running.size() < width) {
      const size_t i = next++;
      running.push_back({i, start_child([&, i] { return work(i); }, what(i)), {}});
    }
    std::vector<pollfd> fds;
    for (const auto& r : running) fds.push_back({r.child.fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("sweep: poll failed");
    }
    for (size_t k = running.size(); k-- > 0;) {
      if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Running& r = running[k];
      const ssize_t got = read(r.child.fd, buf.data(), buf.size());
      if (got > 0) {
        r.text.append(buf.data(), static_cast<size_t>(got));
        continue;
      }
      close(r.child.fd);  // end of its output
      const int rc = reap(r.child.pid);
      const size_t index = r.index;
      std::string text = rc == 0 ? std::move(r.text) : std::string();
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
      done(index, rc, std::move(text));
    }
  }
}

}  // namespace normsim::asic
