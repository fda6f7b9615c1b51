// normsim._normsim: the command line (tools/normsim/cli_main.hpp) run in a
// child process of the interpreter, as the CLI runs each simulation: SystemC
// elaborates once per process, and a crash or exit in the model cannot take
// the caller (a notebook) down. The Python layer (normsim/__init__.py) builds
// the argv and reads the JSON report back.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/report/run_report.hpp"
#include "tools/normsim/cli_main.hpp"

namespace py = pybind11;

namespace {

// Both pipes drained together: a child that fills one while the parent
// blocks on the other would never finish.
void drain(int out_fd, int err_fd, std::string& out, std::string& err) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* sinks[2] = {&out, &err};
  int open = 2;
  char buf[65536];
  while (open > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("normsim: poll: ") + std::strerror(errno));
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
}

/// (exit code, stdout, stderr) of `normsim ARGS...`.
std::tuple<int, std::string, std::string> invoke(const std::vector<std::string>& args) {
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) throw std::runtime_error(std::string("normsim: pipe: ") + std::strerror(errno));
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]), close(out_pipe[1]);
    throw std::runtime_error(std::string("normsim: pipe: ") + std::strerror(errno));
  }
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("normsim: fork: ") + std::strerror(errno));
  if (pid == 0) {
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    std::vector<std::string> argv_store = {"normsim"};
    argv_store.insert(argv_store.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_store) argv.push_back(a.data());
    argv.push_back(nullptr);
    int rc = 3;
    try {
      rc = normsim::cli::cli_main(static_cast<int>(argv_store.size()), argv.data());
    } catch (...) {
      rc = 3;
    }
    std::fflush(nullptr);
    _exit(rc);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  std::string out, err;
  int status = 0;
  {
    py::gil_scoped_release released;
    drain(out_pipe[0], err_pipe[0], out, err);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return {rc, out, err};
}

}  // namespace

PYBIND11_MODULE(_normsim, m) {
  m.doc() = "normsim's command line, each call in a child process (see the normsim package)";
  m.def("invoke", &invoke, py::arg("args"),
        "Runs `normsim ARGS...` in a child process; returns (exit code, stdout, stderr).");
  m.def(
      "report_leaves",
      [](const std::string& report_json) {
        nlohmann::json leaves = nlohmann::json::array();
        for (auto& [path, leaf] : normsim::report::report_leaves(nlohmann::json::parse(report_json)))
          leaves.push_back({path, leaf});
        return leaves.dump();
      },
      py::arg("report_json"),
      "A report's leaves as JSON [[dotted path, leaf], ...]: the columns of its CSV (sim/report/run_report.hpp).");
  m.attr("version") = NORMSIM_VERSION;
}
