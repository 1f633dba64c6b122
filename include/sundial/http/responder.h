// Responder: how a handler answers one request, now or later, from any
// thread.
//
// Why: queries run on a worker pool and "/api/put?sync" waits for an fsync,
// so a handler may return before it has an answer. The connection keeps
// pipelined replies in request order whatever order handlers finish in.
//
// Contract:
//  * Call exactly one of Send() or StartChunked(), once, from any thread.
//  * After StartChunked(): WriteChunk() any number of times, then Finish()
//    once, all from one thread at a time (calls are applied in call order).
//  * Every call returns at once; the bytes are written by the connection's
//    I/O thread. A responder dropped without an answer sends a 500 (or, if
//    streaming had started, ends the response and closes the connection).
//  * The responder keeps its connection alive until it is finished, so a
//    handler must not hold it forever.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "sundial/http/reply.h"

namespace sundial::http {

class Responder {
 public:
  virtual ~Responder() = default;

  // Sends a complete reply. A gzip Content-Encoding is applied when the
  // client accepts it and the body is large enough, unless the reply
  // carries its own Content-Encoding header (a body encoded already).
  virtual void Send(Reply reply) = 0;

  // Starts a streamed reply with head's status and headers, using chunked
  // transfer encoding (or, for an HTTP/1.0 client, no length and a close at
  // the end). A non-empty head.body is sent as the first piece. The body
  // is gzip-compressed on the fly when the client accepts gzip.
  virtual void StartChunked(Reply head) = 0;

  // Queues one piece of the streamed body (empty pieces are ignored).
  // on_written, if given, runs on the connection's I/O thread once the
  // connection can take more: its unsent output (this piece included) is
  // at or under its cap (true), or the connection is gone (false). Callbacks
  // run in call order. A producer uses it for backpressure: produce the next
  // piece only after the callback of the previous one ran; a client that
  // does not read then holds at most the cap and one piece. It must not
  // block.
  virtual void WriteChunk(std::string data, std::function<void(bool ok)> on_written = nullptr) = 0;

  // Ends the streamed reply.
  virtual void Finish() = 0;

  // True once the client has gone away or the server is stopping; a long
  // computation may stop early (its answer would be discarded anyway).
  virtual bool cancelled() const = 0;
};

using ResponderPtr = std::shared_ptr<Responder>;

}  // namespace sundial::http
