#include "http_client.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libcurl's ABI, stable since 7.x (curl/curl.h): the option and info numbers used here. */
enum {
    OPT_WRITEDATA = 10001, OPT_URL = 10002, OPT_ERRORBUFFER = 10010, OPT_WRITEFUNCTION = 20011,
    OPT_POSTFIELDS = 10015, OPT_USERAGENT = 10018, OPT_LOW_SPEED_LIMIT = 19, OPT_LOW_SPEED_TIME = 20,
    OPT_HTTPHEADER = 10023, OPT_FOLLOWLOCATION = 52, OPT_POSTFIELDSIZE = 60, OPT_MAXREDIRS = 68,
    OPT_NOSIGNAL = 99, OPT_ACCEPT_ENCODING = 10102, OPT_TIMEOUT_MS = 155, OPT_CONNECTTIMEOUT_MS = 156,
    OPT_PROTOCOLS = 181, OPT_REDIR_PROTOCOLS = 182,
    INFO_RESPONSE_CODE = 0x200002,
    E_UNSUPPORTED_PROTOCOL = 1, E_URL_MALFORMAT = 3, E_COULDNT_RESOLVE_PROXY = 5, E_COULDNT_RESOLVE_HOST = 6,
    E_COULDNT_CONNECT = 7, E_OPERATION_TIMEDOUT = 28, E_TOO_MANY_REDIRECTS = 47, E_PEER_FAILED_VERIFICATION = 60,
    PROTO_HTTP_HTTPS = 3,
    GLOBAL_DEFAULT = 3,
};

struct slist;
static struct {
    int (*global_init)(long);
    void *(*easy_init)(void);
    int (*easy_setopt)(void *, int, ...);
    int (*easy_perform)(void *);
    int (*easy_getinfo)(void *, int, ...);
    void (*easy_cleanup)(void *);
    const char *(*easy_strerror)(int);
    struct slist *(*slist_append)(struct slist *, const char *);
    void (*slist_free_all)(struct slist *);
} curl;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[256];

static void load(void) {
    void *h = dlopen("libcurl.so.4", RTLD_LAZY | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        snprintf(failure, sizeof failure, "libcurl (libcurl.so.4) could not be opened: %s; install libcurl4", why ? why : "not found");
        return;
    }
    struct { void **address; const char *name; } symbols[] = {
        {(void **)&curl.global_init, "curl_global_init"}, {(void **)&curl.easy_init, "curl_easy_init"},
        {(void **)&curl.easy_setopt, "curl_easy_setopt"}, {(void **)&curl.easy_perform, "curl_easy_perform"},
        {(void **)&curl.easy_getinfo, "curl_easy_getinfo"}, {(void **)&curl.easy_cleanup, "curl_easy_cleanup"},
        {(void **)&curl.easy_strerror, "curl_easy_strerror"}, {(void **)&curl.slist_append, "curl_slist_append"},
        {(void **)&curl.slist_free_all, "curl_slist_free_all"},
    };
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        if (!(*symbols[i].address = dlsym(h, symbols[i].name))) {
            snprintf(failure, sizeof failure, "libcurl has no %s", symbols[i].name);
            return;
        }
    }
    if (curl.global_init(GLOBAL_DEFAULT) != 0) snprintf(failure, sizeof failure, "libcurl could not be initialised");
}

typedef struct {
    uint8_t *data;
    size_t size, capacity;
    int failed;
} answer;

static size_t received(char *piece, size_t one, size_t count, void *user) {
    answer *a = (answer *)user;
    size_t n = one * count;
    if (a->size + n > a->capacity) {
        size_t capacity = a->capacity ? a->capacity : 64 * 1024;
        while (capacity < a->size + n) capacity *= 2;
        uint8_t *grown = realloc(a->data, capacity);
        if (!grown) { a->failed = 1; return 0; }
        a->data = grown;
        a->capacity = capacity;
    }
    memcpy(a->data + a->size, piece, n);
    a->size += n;
    return n;
}

int molshot_http_request(const char *url, const uint8_t *body, size_t body_size, const char *content_type,
                         const char *user_agent, double timeout, double transfer_timeout, long *status, uint8_t **out,
                         size_t *out_size, int *failure_kind, char *error, size_t error_size) {
    *failure_kind = 2;
    pthread_once(&once, load);
    if (failure[0]) {
        snprintf(error, error_size, "%s", failure);
        return 1;
    }
    void *h = curl.easy_init();
    if (!h) {
        snprintf(error, error_size, "libcurl could not start a request");
        return 1;
    }
    char message[256] = "";
    answer a = {0};
    struct slist *headers = NULL;
    long ms = timeout > 0.001 ? (long)(timeout * 1000) : 1;
    long whole = transfer_timeout > timeout ? (long)(transfer_timeout * 1000) : ms;
    long stall = ms < 1000 ? 1 : (ms + 999) / 1000;
    curl.easy_setopt(h, OPT_URL, url);
    curl.easy_setopt(h, OPT_ERRORBUFFER, message);
    curl.easy_setopt(h, OPT_WRITEFUNCTION, received);
    curl.easy_setopt(h, OPT_WRITEDATA, &a);
    curl.easy_setopt(h, OPT_USERAGENT, user_agent);
    curl.easy_setopt(h, OPT_FOLLOWLOCATION, 1L);
    curl.easy_setopt(h, OPT_MAXREDIRS, 10L);
    curl.easy_setopt(h, OPT_PROTOCOLS, (long)PROTO_HTTP_HTTPS);
    curl.easy_setopt(h, OPT_REDIR_PROTOCOLS, (long)PROTO_HTTP_HTTPS);
    curl.easy_setopt(h, OPT_NOSIGNAL, 1L);
    curl.easy_setopt(h, OPT_ACCEPT_ENCODING, "");
    curl.easy_setopt(h, OPT_CONNECTTIMEOUT_MS, ms);
    curl.easy_setopt(h, OPT_LOW_SPEED_LIMIT, 1L);
    curl.easy_setopt(h, OPT_LOW_SPEED_TIME, stall);
    curl.easy_setopt(h, OPT_TIMEOUT_MS, whole);
    if (body) {
        char header[256];
        snprintf(header, sizeof header, "Content-Type: %s", content_type ? content_type : "application/octet-stream");
        headers = curl.slist_append(NULL, header);
        curl.easy_setopt(h, OPT_HTTPHEADER, headers);
        curl.easy_setopt(h, OPT_POSTFIELDSIZE, (long)body_size);
        curl.easy_setopt(h, OPT_POSTFIELDS, (const char *)body);
    }
    int code = curl.easy_perform(h);
    int result = 0;
    if (code != 0 || a.failed) {
        switch (code) {
        case E_OPERATION_TIMEDOUT: *failure_kind = 1; break;
        case E_UNSUPPORTED_PROTOCOL: case E_URL_MALFORMAT: case E_COULDNT_RESOLVE_PROXY: case E_COULDNT_RESOLVE_HOST:
        case E_COULDNT_CONNECT: case E_TOO_MANY_REDIRECTS: case E_PEER_FAILED_VERIFICATION: *failure_kind = 2; break;
        default: *failure_kind = a.failed ? 2 : 0;
        }
        snprintf(error, error_size, "%s", a.failed ? "out of memory" : (message[0] ? message : curl.easy_strerror(code)));
        free(a.data);
        result = 1;
    } else {
        curl.easy_getinfo(h, INFO_RESPONSE_CODE, status);
        *out = a.data ? a.data : malloc(1);
        *out_size = a.size;
    }
    if (headers) curl.slist_free_all(headers);
    curl.easy_cleanup(h);
    return result;
}

void molshot_http_free(uint8_t *data) { free(data); }
