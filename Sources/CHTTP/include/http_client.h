#ifndef MOLSHOT_HTTP_CLIENT_H
#define MOLSHOT_HTTP_CLIENT_H

#include <stddef.h>
#include <stdint.h>

/// One HTTP(S) request through libcurl, opened at run time (dlopen of libcurl.so.4) so that the
/// commands that never go to the network do not load it and its two dozen libraries at start.
/// A `body` makes it a POST with `content_type`. `timeout` seconds bound the connection, the wait
/// for the first byte and any stall; `transfer_timeout`, the whole transfer. Returns 0 with
/// `*status` and the answer in `*out` (free with molshot_http_free); otherwise nonzero with
/// `error` filled and `*failure_kind`: 1 a time limit, 0 a failure worth another try (a reset,
/// an answer cut short), 2 one that another try will not mend (no such host, connection refused,
/// a bad URL, a certificate).
int molshot_http_request(const char *url, const uint8_t *body, size_t body_size, const char *content_type,
                         const char *user_agent, double timeout, double transfer_timeout, long *status, uint8_t **out,
                         size_t *out_size, int *failure_kind, char *error, size_t error_size);

void molshot_http_free(uint8_t *data);

#endif
