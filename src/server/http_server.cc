#include "server/http_server.h"

#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string_view>
#include <thread>
#include <vector>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "server/errors.h"

namespace omnigraph::server {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

constexpr auto kDrainTimeout = std::chrono::seconds(10);
// How long a connection refused mid-upload keeps reading (and discarding)
// what the client still sends, so the refusal reaches it.
constexpr auto kLingerTimeout = std::chrono::seconds(5);
constexpr uint32_t kHeaderLimit = 64 * 1024;

}  // namespace

struct HttpServer::Impl {
  Impl(Server& server, const TransportOptions& options)
      : server(server), options(options), acceptor(io), signals(io, SIGINT, SIGTERM),
        read_workers(static_cast<size_t>(std::max(1, options.read_threads))) {
    for (int i = 0; i < std::max(1, options.write_threads); ++i) {
      write_workers.push_back(std::make_unique<asio::thread_pool>(1));
    }
  }

  Server& server;
  TransportOptions options;
  asio::io_context io;
  tcp::acceptor acceptor;
  asio::signal_set signals;
  asio::thread_pool read_workers;
  // Single-thread pools: a graph's writes run one at a time anyway (its
  // write gate), and always on the same thread they find the writer's
  // working set in that core's caches and allocate from one malloc arena.
  // Spread over four threads, a one-node insert took 0.1 ms longer in the
  // engine alone (docs/benchmarks.md, "Server").
  std::vector<std::unique_ptr<asio::thread_pool>> write_workers;

  // The write thread of the graph `path` names (/graphs/<id>/…); the first
  // for any other path.
  asio::thread_pool& WriteWorkerFor(const std::string& path) {
    constexpr std::string_view kGraphs = "/graphs/";
    size_t index = 0;
    if (path.compare(0, kGraphs.size(), kGraphs) == 0) {
      std::string_view rest = std::string_view(path).substr(kGraphs.size());
      index = std::hash<std::string_view>{}(rest.substr(0, rest.find('/'))) % write_workers.size();
    }
    return *write_workers[index];
  }
  std::atomic<bool> stopping{false};
  std::atomic<int> in_flight{0};

  void Accept();
  void BeginStop();
  void DrainThenStop(std::shared_ptr<asio::steady_timer> timer, std::chrono::steady_clock::time_point deadline);
};

namespace {

// One connection: read a request, hand it to a worker, write the response,
// and read the next while the connection is kept alive. Only one of these
// steps is pending at a time, so the session needs no strand.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, HttpServer::Impl& owner) : stream_(std::move(socket)), owner_(owner) {}

  void Start() {
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->ReadHeader(); });
  }

 private:
  void ReadHeader() {
    EndResponse();  // the previous response, if any, is written
    parser_.emplace();
    parser_->header_limit(kHeaderLimit);
    // No limit while reading the header: Beast would fail the header read
    // itself when Content-Length exceeds the limit, and the connection
    // would close without a response. OnHeader applies the route's limit
    // (413 for a declared length over it; the parser's limit for chunked).
    // Not boost::none: Boost 1.74 compares `length > none` as true.
    parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
    stream_.expires_after(std::chrono::seconds(owner_.options.idle_timeout_seconds));
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = shared_from_this()](beast::error_code error, size_t) { self->OnHeader(error); });
  }

  void OnHeader(beast::error_code error) {
    if (error) return Close();
    // In flight from here: a graceful stop lets a body still uploading
    // arrive and its request finish (up to kDrainTimeout).
    BeginResponse();
    const auto& header = parser_->get();
    std::string target(header.target());
    std::string path = target.substr(0, target.find('?'));
    method_ = std::string(header.method_string());
    path_ = path;
    started_ = std::chrono::steady_clock::now();
    head_request_ = header.method() == http::verb::head;
    Server::RouteTraits traits = owner_.server.TraitsOf(method_, path);
    writes_ = traits.writes;
    limit_ = traits.body_limit;
    keep_alive_ = header.keep_alive();
    if (traits.preflight) {
      // Auth and policy answer before the body is read (and before its
      // limit applies): run them on a worker, then go on or refuse.
      auto request = std::make_shared<HttpRequest>();
      request->method = method_;
      if (!SplitTarget(target, request.get())) {
        return Refuse(ErrorResponse(400, "malformed percent-escape in the query string", "bad_request"));
      }
      for (const auto& field : header) request->headers.Add(std::string(field.name_string()), std::string(field.value()));
      asio::post(owner_.read_workers, [self = shared_from_this(), request] {
        auto refusal = self->owner_.server.Preflight(*request);
        asio::post(self->stream_.get_executor(), [self, refusal = std::move(refusal)]() mutable {
          if (refusal) return self->Refuse(std::move(*refusal));
          self->AfterPreflight();
        });
      });
      return;
    }
    AfterPreflight();
  }

  // The body limit, then `Expect: 100-continue`, then the body.
  void AfterPreflight() {
    const auto& header = parser_->get();
    uint64_t limit = limit_;
    if (parser_->content_length() && *parser_->content_length() > limit) {
      return Refuse(PayloadTooLarge("request_body_bytes", limit, *parser_->content_length()));
    }
    parser_->body_limit(limit);
    auto expect = header.find(http::field::expect);
    if (expect != header.end() && beast::iequals(expect->value(), "100-continue")) {
      auto proceed = std::make_shared<http::response<http::empty_body>>(http::status::continue_, header.version());
      http::async_write(stream_, *proceed, [self = shared_from_this(), proceed](beast::error_code e, size_t) {
        if (e) return self->Close();
        self->ReadBody();
      });
      return;
    }
    ReadBody();
  }

  void ReadBody() {
    stream_.expires_after(std::chrono::seconds(owner_.options.idle_timeout_seconds));
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code error, size_t) { self->OnBody(error); });
  }

  void OnBody(beast::error_code error) {
    if (error == http::error::body_limit) {
      return Refuse(PayloadTooLarge("request_body_bytes", limit_, limit_ + 1));
    }
    if (error) return Close();
    stream_.expires_never();
    auto message = parser_->release();
    auto request = std::make_shared<HttpRequest>();
    request->method = method_;
    if (!SplitTarget(std::string(message.target()), request.get())) {
      owner_.server.LogRequest(method_, path_, 400, std::nullopt, started_);
      return Send(ErrorResponse(400, "malformed percent-escape in the query string", "bad_request"));
    }
    for (const auto& field : message) request->headers.Add(std::string(field.name_string()), std::string(field.value()));
    request->body = std::move(message.body());
    keep_alive_ = message.keep_alive();
    asio::thread_pool& workers = writes_ ? owner_.WriteWorkerFor(request->path) : owner_.read_workers;
    asio::post(workers, [self = shared_from_this(), request] {
      HttpResponse response = self->owner_.server.Handle(*request);
      asio::post(self->stream_.get_executor(), [self, response = std::move(response)]() mutable {
        self->Send(std::move(response));
      });
    });
  }

  void Send(HttpResponse response) {
    if (owner_.stopping) keep_alive_ = false;
    // A HEAD response never has a body, whatever its status (RFC 9110 §9.3.2).
    if (head_request_) response.head_only = true;
    if (response.stream && !response.head_only) return SendStream(std::move(response));
    auto message = std::make_shared<http::response<http::string_body>>(static_cast<http::status>(response.status), 11);
    message->set(http::field::content_type, response.content_type);
    for (const auto& [name, value] : response.headers) message->set(name, value);
    message->keep_alive(keep_alive_);
    if (response.head_only) {
      // HEAD answers GET's Content-Length without a body.
      message->content_length(response.stream_length.value_or(response.body.size()));
    } else {
      message->body() = std::move(response.body);
      message->prepare_payload();
    }
    http::async_write(stream_, *message, [self = shared_from_this(), message](beast::error_code error, size_t) {
      if (!error && self->linger_) return self->LingeringClose();
      if (error || !self->keep_alive_) return self->Close();
      self->ReadHeader();
    });
  }

  // A refusal the transport makes before the pipeline runs (body limits, a
  // malformed target, a preflight's answer): logged, sent, and the
  // connection closed. The client may still be sending the body, and
  // closing a socket with unread input makes the kernel reset the
  // connection, which can discard the response before the client reads it.
  // So half-close, then read and discard until the client closes too or a
  // short timeout passes (RFC 9112 §9.6).
  void Refuse(HttpResponse response) {
    owner_.server.LogRequest(method_, path_, response.status, std::nullopt, started_);
    keep_alive_ = false;
    linger_ = true;
    Send(std::move(response));
  }

  void LingeringClose() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(kLingerTimeout);
    DiscardInput();
  }

  void DiscardInput() {
    auto scratch = std::make_shared<std::array<char, 64 * 1024>>();
    stream_.async_read_some(asio::buffer(*scratch), [self = shared_from_this(), scratch](beast::error_code error, size_t) {
      if (error) return self->Close();  // EOF, reset or the timeout
      self->DiscardInput();
    });
  }

  // A streamed body: the header with chunked encoding, then one chunk per
  // producer call, each produced on a worker and written before the next is
  // asked for, so a reader that stops reading stops the producer (at most
  // one chunk is held).
  void SendStream(HttpResponse response) {
    producer_ = response.stream;
    auto header = std::make_shared<http::response<http::empty_body>>(static_cast<http::status>(response.status), 11);
    header->set(http::field::content_type, response.content_type);
    for (const auto& [name, value] : response.headers) header->set(name, value);
    chunked_ = !response.stream_length;
    if (chunked_) header->chunked(true);
    else header->content_length(*response.stream_length);
    header->keep_alive(keep_alive_);
    auto serializer = std::make_shared<http::response_serializer<http::empty_body>>(*header);
    http::async_write_header(stream_, *serializer,
                             [self = shared_from_this(), header, serializer](beast::error_code error, size_t) {
                               if (error) return self->Close();
                               self->NextChunk();
                             });
  }

  void NextChunk() {
    asio::post(owner_.read_workers, [self = shared_from_this()] {
      auto chunk = std::make_shared<std::string>();
      bool failed = false;
      bool more = self->producer_->next(chunk.get(), &failed);
      asio::post(self->stream_.get_executor(), [self, chunk, more, failed] {
        if (failed) return self->Close();  // no terminal chunk: the client sees truncation
        if (!more && !self->chunked_) {
          self->producer_.reset();
          if (!self->keep_alive_) return self->Close();
          return self->ReadHeader();
        }
        if (!self->chunked_) {
          asio::async_write(self->stream_, asio::buffer(*chunk), [self, chunk](beast::error_code error, size_t) {
            if (error) return self->Close();
            self->NextChunk();
          });
          return;
        }
        if (!more) {
          asio::async_write(self->stream_, http::make_chunk_last(), [self](beast::error_code error, size_t) {
            self->producer_.reset();
            if (error || !self->keep_alive_) return self->Close();
            self->ReadHeader();
          });
          return;
        }
        asio::async_write(self->stream_, http::make_chunk(asio::buffer(*chunk)),
                          [self, chunk](beast::error_code error, size_t) {
                            if (error) return self->Close();
                            self->NextChunk();
                          });
      });
    });
  }

  // A request counts as in flight from its body's arrival until its
  // response is written whole or its connection closes, so a graceful stop
  // also waits (up to kDrainTimeout) for streamed bodies still being sent.
  void BeginResponse() {
    if (!responding_) ++owner_.in_flight;
    responding_ = true;
  }
  void EndResponse() {
    if (responding_) --owner_.in_flight;
    responding_ = false;
  }

  void Close() {
    EndResponse();
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.socket().close(ignored);
  }

  beast::tcp_stream stream_;
  HttpServer::Impl& owner_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  bool keep_alive_ = true;
  uint64_t limit_ = kDefaultBodyLimit;
  bool linger_ = false;
  std::shared_ptr<BodyProducer> producer_;
  bool chunked_ = true;
  bool writes_ = false;
  bool responding_ = false;
  // The request being answered, for HEAD and for the request log.
  std::string method_, path_;
  std::chrono::steady_clock::time_point started_;
  bool head_request_ = false;
};

}  // namespace

void HttpServer::Impl::Accept() {
  acceptor.async_accept(asio::make_strand(io), [this](beast::error_code error, tcp::socket socket) {
    if (error) {
      if (!acceptor.is_open()) return;  // stopping
    } else {
      // Responses are written whole; waiting to coalesce them only adds
      // latency to every keep-alive request.
      beast::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      std::make_shared<Session>(std::move(socket), *this)->Start();
    }
    Accept();
  });
}

void HttpServer::Impl::BeginStop() {
  if (stopping.exchange(true)) return;
  beast::error_code ignored;
  acceptor.close(ignored);
  signals.cancel(ignored);
  auto timer = std::make_shared<asio::steady_timer>(io);
  DrainThenStop(timer, std::chrono::steady_clock::now() + kDrainTimeout);
}

void HttpServer::Impl::DrainThenStop(std::shared_ptr<asio::steady_timer> timer,
                                     std::chrono::steady_clock::time_point deadline) {
  if (in_flight == 0 || std::chrono::steady_clock::now() >= deadline) {
    io.stop();
    return;
  }
  timer->expires_after(std::chrono::milliseconds(20));
  timer->async_wait([this, timer, deadline](beast::error_code) { DrainThenStop(timer, deadline); });
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() {
  if (impl_) {
    impl_->read_workers.join();
    for (auto& workers : impl_->write_workers) workers->join();
  }
}

Result<std::unique_ptr<HttpServer>> HttpServer::Bind(Server& server, const TransportOptions& options) {
  size_t colon = options.bind.rfind(':');
  if (colon == std::string::npos) return InvalidArgument("--bind must be ip:port; got '" + options.bind + "'");
  std::string host = options.bind.substr(0, colon);
  if (host.size() > 1 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  unsigned long port = 0;
  try {
    size_t used = 0;
    port = std::stoul(options.bind.substr(colon + 1), &used);
    if (used != options.bind.size() - colon - 1 || port > 65535) throw std::out_of_range("port");
  } catch (const std::exception&) {
    return InvalidArgument("--bind must be ip:port with a port from 0 to 65535; got '" + options.bind + "'");
  }
  beast::error_code error;
  auto address = asio::ip::make_address(host, error);
  if (error) return InvalidArgument("--bind: '" + host + "' is not an IP address");
  auto impl = std::make_unique<Impl>(server, options);
  tcp::endpoint endpoint(address, static_cast<uint16_t>(port));
  impl->acceptor.open(endpoint.protocol(), error);
  if (!error) impl->acceptor.set_option(asio::socket_base::reuse_address(true), error);
  if (!error) impl->acceptor.bind(endpoint, error);
  if (!error) impl->acceptor.listen(asio::socket_base::max_listen_connections, error);
  if (error) return IoError("cannot listen on " + options.bind + ": " + error.message());
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

std::string HttpServer::local_address() const {
  auto endpoint = impl_->acceptor.local_endpoint();
  std::string host = endpoint.address().to_string();
  if (endpoint.address().is_v6()) host = "[" + host + "]";
  return host + ":" + std::to_string(endpoint.port());
}

void HttpServer::Run() {
  impl_->signals.async_wait([this](beast::error_code error, int) {
    if (!error) impl_->BeginStop();
  });
  impl_->Accept();
  // Socket work is light next to engine work, which runs on the workers:
  // half the cores keep the io threads from competing with the workers.
  int io_threads = impl_->options.io_threads;
  if (io_threads <= 0) io_threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / 2);
  std::vector<std::thread> threads;
  for (int i = 1; i < io_threads; ++i) threads.emplace_back([this] { impl_->io.run(); });
  impl_->io.run();
  for (std::thread& thread : threads) thread.join();
}

void HttpServer::Stop() {
  asio::post(impl_->io, [this] { impl_->BeginStop(); });
}

}  // namespace omnigraph::server
