"""HistoryHub settings, driven by environment variables.

Every variable is parsed strictly: a value that cannot be understood stops the
process at start-up instead of being silently replaced by a default.
"""

import base64
import ipaddress
import json
import os
import re
import secrets
from datetime import timedelta
from pathlib import Path

import dj_database_url
import django_stubs_ext
from cryptography.fernet import Fernet
from django.core.exceptions import ImproperlyConfigured

# Django's generic classes take their type arguments at run time too (``admin.ModelAdmin[Policy]``), as mypy reads
# them (django-stubs).
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent


def envbool(name, default):
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value in ("True", "true", "1"):
        return True
    if value in ("False", "false", "0"):
        return False
    raise ImproperlyConfigured(f"{name} must be True or False, not {value!r}")


def envint(name, default, minimum=0):
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {value!r}") from None
    if number < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {value!r}")
    return number


def envlist(name, default):
    value = os.environ.get(name)
    if value is None:
        return default
    return [part.strip() for part in value.split(",") if part.strip()]


DEBUG = envbool("DEBUG", False)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY is required when DEBUG is off")
    SECRET_KEY = "insecure-development-key-only-used-with-DEBUG-on"

ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", [])

# The Insights range indexes carry columns beside their keys (history 0019) so PostgreSQL answers from the index
# alone; SQLite builds them without those columns, by design, and Django says so on every command.
SILENCED_SYSTEM_CHECKS = ["models.W040"]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    # Before staticfiles: its collectstatic leaves a stamp, which bin/start's --if-stale compares.
    "historyhub.serving",
    "django.contrib.staticfiles",
    "django_htmx",
    "ninja",
    "historyhub.projects",
    "historyhub.history",
    "historyhub.apikeys",
    "historyhub.dashboard",
    "historyhub.idempotency",
    "axes",
    "historyhub.runs",
    "historyhub.approvals",
    "historyhub.audit",
    "historyhub.insights",
    "historyhub.data",
    "historyhub.notifications",
    "historyhub.upkeep",
    "historyhub.demo",
    "historyhub.sso",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "historyhub.middleware.ContentSecurityPolicyMiddleware",
    "historyhub.middleware.StaticFilesMiddleware",
    "historyhub.middleware.NoStoreMiddleware",
    "historyhub.middleware.FaultMiddleware",
    "historyhub.middleware.ApiBodyLimitMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "axes.middleware.AxesMiddleware",
    # A person's page write pins their reads to the primary for a while (docs/scaling.md, "Reads").
    "historyhub.databases.pinning.PinAfterWriteMiddleware",
    # Last, next to the view: a keyed write runs in the transaction that records its answer.
    "historyhub.idempotency.middleware.IdempotencyMiddleware",
]

ROOT_URLCONF = "historyhub.urls"
ASGI_APPLICATION = "historyhub.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "historyhub.dashboard.context.navigation",
                "historyhub.dashboard.context.theme",
                "historyhub.dashboard.context.time_zone",
            ],
        },
    },
]

# Serving (historyhub/serving/, docs/operations.md) -----------------------------

# Threads per worker process for requests that do not wait (historyhub.asgi): as many as a process
# has database connections, so a busy worker queues requests instead of making them wait for a connection.
REQUEST_THREADS = envint("REQUEST_THREADS", envint("DATABASE_POOL_SIZE", 10, minimum=1), minimum=1)
# Requests that wait (a client action's ?wait=, a live stream) of one worker using the database at once; the
# others queue on the event loop, in order, for up to LIVE_TURN_QUEUE_SECONDS, then answer 503 with Retry-After
# (historyhub.live.turns); a wait counts the time it queued against its own. Half the pool by default: the other
# half is the requests that do not wait.
LIVE_DATABASE_TURNS = envint("LIVE_DATABASE_TURNS", max(1, envint("DATABASE_POOL_SIZE", 10, minimum=1) // 2), minimum=1)
LIVE_TURN_QUEUE_SECONDS = envint("LIVE_TURN_QUEUE_SECONDS", 30, minimum=1)
# Seconds a connection has to send a whole request head, from when it opens or its last answer was
# sent; one that has not is closed (historyhub.serving.protocol).
REQUEST_HEADER_TIMEOUT = envint("REQUEST_HEADER_TIMEOUT", 10, minimum=1)
# Seconds a request body has to arrive whole once its head has; later, the request is answered 408
# and the connection closed (historyhub.serving.bodies).
REQUEST_BODY_TIMEOUT = envint("REQUEST_BODY_TIMEOUT", 30, minimum=1)

# Databases ------------------------------------------------------------------

DATA_DIR = Path(os.environ.get("DATA_DIR", BASE_DIR / "data"))
DATABASE_URL = os.environ.get("DATABASE_URL") or f"sqlite:///{DATA_DIR / 'historyhub.sqlite3'}"
try:
    _database = dj_database_url.parse(DATABASE_URL)
except ValueError as error:
    raise ImproperlyConfigured(f"DATABASE_URL is not a database URL: {error}") from None

if _database["ENGINE"] == "django.db.backends.sqlite3":
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    _database["OPTIONS"] = {
        # WAL lets readers run beside the writer; IMMEDIATE takes the write lock
        # when a transaction starts, so concurrent writers queue on the busy
        # timeout instead of failing with "database is locked" on upgrade.
        "transaction_mode": "IMMEDIATE",
        "timeout": 30,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;",
    }
    # A file, not memory, so a test can share the database with the processes
    # it forks and the live server thread, the way production does; one file
    # per test run, so runs side by side do not delete each other's.
    _database["TEST"] = {"NAME": str(DATA_DIR / f"test-{os.getpid()}.sqlite3")}
elif _database["ENGINE"] == "django.db.backends.postgresql":
    # Django's backend, but each pooled connection is checked before a request
    # gets it: those the server closed (a restart) are replaced, not used.
    _database["ENGINE"] = "historyhub.postgresql"
    _database["CONN_MAX_AGE"] = 0
    _database["OPTIONS"] = {
        "connect_timeout": envint("DATABASE_CONNECT_TIMEOUT", 5, minimum=1),
        # Short queries only: compiling one with JIT costs more than it could save (docs/search.md).
        "options": "-c jit=off",
    }
    if not envbool("DATABASE_POOL_DISABLED", False):
        _database["OPTIONS"]["pool"] = {
            "min_size": 1,
            "max_size": envint("DATABASE_POOL_SIZE", 10, minimum=1),
            # How long a request waits for a connection before it answers 503.
            "timeout": envint("DATABASE_POOL_TIMEOUT", 5, minimum=1),
            # A lost connection is retried with a growing delay for this long and
            # then afresh when a request needs one, so the service comes back
            # within seconds of the database, however long it was away.
            "reconnect_timeout": 10,
        }
else:
    raise ImproperlyConfigured("DATABASE_URL must point at SQLite or PostgreSQL")

DATABASES = {"default": _database}

# Several servers on PostgreSQL (docs/scaling.md) --------------------------------------

# DATABASE_URL names PgBouncer in transaction mode: each transaction may run on another server connection,
# so nothing may outlive one (no server-side prepared statements or cursors, no startup options).
DATABASE_TRANSACTION_POOLING = envbool("DATABASE_TRANSACTION_POOLING", False)
# Where the process's LISTEN connections go: the primary itself, never a transaction pooler (which would hand
# the LISTEN's server connection to someone else after the statement). Empty: DATABASE_URL's server.
DATABASE_LISTEN_URL = os.environ.get("DATABASE_LISTEN_URL", "")
# A streaming replica for the reads that may be a little stale (historyhub.databases); empty: none.
DATABASE_REPLICA_URL = os.environ.get("DATABASE_REPLICA_URL", "")
# Beyond this many seconds behind the primary, the replica is not read: the primary is.
DATABASE_REPLICA_MAX_LAG_SECONDS = envint("DATABASE_REPLICA_MAX_LAG_SECONDS", 5, minimum=1)
# After a person's write, their reads stay on the primary this long, so they see what they did.
DATABASE_REPLICA_PIN_SECONDS = envint("DATABASE_REPLICA_PIN_SECONDS", 10, minimum=1)
if _database["ENGINE"] != "historyhub.postgresql" and (
    DATABASE_TRANSACTION_POOLING or DATABASE_LISTEN_URL or DATABASE_REPLICA_URL
):
    raise ImproperlyConfigured(
        "DATABASE_TRANSACTION_POOLING, DATABASE_LISTEN_URL and DATABASE_REPLICA_URL are for PostgreSQL: "
        "DATABASE_URL names SQLite"
    )
if DATABASE_TRANSACTION_POOLING:
    if not DATABASE_LISTEN_URL:
        raise ImproperlyConfigured(
            "DATABASE_TRANSACTION_POOLING needs DATABASE_LISTEN_URL: LISTEN through a transaction pooler hears nothing"
        )
    # psycopg prepares a query on the server after its fifth run; the next transaction may be on a connection
    # that never saw it. Server-side cursors (QuerySet.iterator) live across statements the same way.
    _database["OPTIONS"]["prepare_threshold"] = None
    _database["DISABLE_SERVER_SIDE_CURSORS"] = True
    # PgBouncer refuses startup options: set jit=off on the server instead (docs/scaling.md).
    del _database["OPTIONS"]["options"]


def _direct_params(url, name):
    try:
        parsed = dj_database_url.parse(url)
    except ValueError as error:
        raise ImproperlyConfigured(f"{name} is not a database URL: {error}") from None
    if parsed["ENGINE"] != "django.db.backends.postgresql":
        raise ImproperlyConfigured(f"{name} must point at PostgreSQL")
    return parsed


# The connection parameters LISTEN uses instead of DATABASE_URL's (historyhub.postgresql.listening).
DATABASE_LISTEN = {}
if DATABASE_LISTEN_URL:
    _listen = _direct_params(DATABASE_LISTEN_URL, "DATABASE_LISTEN_URL")
    DATABASE_LISTEN = {
        "host": _listen["HOST"],
        "port": _listen["PORT"],
        "dbname": _listen["NAME"],
        "user": _listen["USER"],
        "password": _listen["PASSWORD"],
    }
if DATABASE_REPLICA_URL:
    _replica = _direct_params(DATABASE_REPLICA_URL, "DATABASE_REPLICA_URL")
    _replica.update({key: _database[key] for key in ("ENGINE", "CONN_MAX_AGE")})
    _replica["OPTIONS"] = {
        **_database["OPTIONS"],
        # A dead replica is given up on quickly: its readers go to the primary.
        "connect_timeout": 1,
    }
    if "pool" in _database["OPTIONS"]:
        _replica["OPTIONS"]["pool"] = {**_database["OPTIONS"]["pool"], "timeout": 1}
    if DATABASE_TRANSACTION_POOLING:
        _replica["DISABLE_SERVER_SIDE_CURSORS"] = True
    # Tests read the replica's alias from the test database itself.
    _replica["TEST"] = {"MIRROR": "default"}
    DATABASES["replica"] = _replica
DATABASE_ROUTERS = ["historyhub.databases.router.PrimaryOrReplica"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Auth -----------------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"

# Login throttling (django-axes, docs/operations.md): after LOGIN_FAILURE_LIMIT
# wrong passwords for one username from one address, that pair is locked out
# for LOGIN_COOLOFF_MINUTES after the last of them, and after LOGIN_ADDRESS_FAILURE_LIMIT
# from one address for any usernames, that address is; a successful login starts
# the pair's count again. No username is locked from every address.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

# Single sign-on with OpenID Connect (historyhub/sso/, docs/sso.md) ------------------------

# The IdP's issuer URL (its discovery document is read from <issuer>/.well-known/openid-configuration at first
# use) and this installation's client there. All three, or none.
OIDC_ISSUER = os.environ.get("OIDC_ISSUER", "").rstrip("/")
OIDC_CLIENT_ID = os.environ.get("OIDC_CLIENT_ID", "")
OIDC_CLIENT_SECRET = os.environ.get("OIDC_CLIENT_SECRET", "")
SSO_ENABLED = bool(OIDC_ISSUER)
if (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET).count("") not in (0, 3):
    raise ImproperlyConfigured("Single sign-on needs OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET, all three")
if SSO_ENABLED and not re.fullmatch(r"https?://[^/\s?#]+(/[^\s?#]*)?", OIDC_ISSUER):
    raise ImproperlyConfigured(f"OIDC_ISSUER must be an http(s) URL without query or fragment, not {OIDC_ISSUER!r}")
# What the login page's button says: "Sign in with <OIDC_PROVIDER_NAME>".
OIDC_PROVIDER_NAME = os.environ.get("OIDC_PROVIDER_NAME", "") or "single sign-on"
# The claim holding a list of the IdP's group names, and which project role each group gives (historyhub.sso.roles).
OIDC_ROLES_CLAIM = os.environ.get("OIDC_ROLES_CLAIM", "")
OIDC_PROJECT_ROLES_JSON = os.environ.get("OIDC_PROJECT_ROLES", "")
OIDC_PROJECT_ROLES = {}
SSO_ROLES = ("viewer", "approver", "admin")  # historyhub.projects.models.Role, which settings cannot import
if OIDC_PROJECT_ROLES_JSON:
    try:
        OIDC_PROJECT_ROLES = json.loads(OIDC_PROJECT_ROLES_JSON)
    except ValueError as error:
        raise ImproperlyConfigured(f"OIDC_PROJECT_ROLES must be JSON: {error}") from None
    _shape = 'OIDC_PROJECT_ROLES must be {"<idp group>": {"<projectId>": "viewer" | "approver" | "admin"}}'
    if not isinstance(OIDC_PROJECT_ROLES, dict):
        raise ImproperlyConfigured(_shape)
    for _group, _roles in OIDC_PROJECT_ROLES.items():
        if not isinstance(_roles, dict):
            raise ImproperlyConfigured(f"{_shape}; the group {_group!r} maps to {_roles!r}")
        for _project, _role in _roles.items():
            if _role not in SSO_ROLES:
                raise ImproperlyConfigured(f"{_shape}; the group {_group!r} gives {_project!r} the role {_role!r}")
    if not OIDC_ROLES_CLAIM:
        raise ImproperlyConfigured("OIDC_PROJECT_ROLES needs OIDC_ROLES_CLAIM: the claim that lists a person's groups")
if OIDC_ROLES_CLAIM and not SSO_ENABLED:
    raise ImproperlyConfigured("OIDC_ROLES_CLAIM is set but single sign-on is not (OIDC_ISSUER)")
# False: single sign-on is the only way in; no password is accepted, in the login page or /admin/ (operators keep
# manage.py). Sessions begun with a password end.
PASSWORD_LOGIN = envbool("PASSWORD_LOGIN", True)
if not PASSWORD_LOGIN and not SSO_ENABLED:
    raise ImproperlyConfigured("PASSWORD_LOGIN=False needs single sign-on (OIDC_ISSUER, ...): nobody could log in")
if not PASSWORD_LOGIN:
    AUTHENTICATION_BACKENDS.remove("django.contrib.auth.backends.ModelBackend")
if SSO_ENABLED:
    AUTHENTICATION_BACKENDS.append("historyhub.sso.backend.OidcBackend")
# mozilla-django-oidc's own settings, fixed: PKCE (S256) and nonce always; the ID token kept in the session for
# the IdP's sign-out; a failed sign-in goes back to the login page.
OIDC_USE_PKCE = True
OIDC_USE_NONCE = True
OIDC_STORE_ID_TOKEN = True
OIDC_RP_SCOPES = "openid email profile"
OIDC_TIMEOUT = 10
LOGIN_REDIRECT_URL_FAILURE = "/accounts/login/?sso=failed"
AXES_FAILURE_LIMIT = envint("LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=envint("LOGIN_COOLOFF_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
LOGIN_ADDRESS_FAILURE_LIMIT = envint("LOGIN_ADDRESS_FAILURE_LIMIT", 20, minimum=1)
AXES_HANDLER = "historyhub.dashboard.login_throttling.Handler"
# An attempt during a lockout does not start the wait again: the person can plan on it ending.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "historyhub.dashboard.login_throttling.locked_out"
AXES_CLIENT_IP_CALLABLE = "historyhub.dashboard.login_throttling.client_address"
AXES_VERBOSE = False  # failures and lockouts are still logged, as warnings

# Internationalisation -------------------------------------------------------

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
# The admin prints times as the dashboard does (historyhub/formats).
FORMAT_MODULE_PATH = ["historyhub.formats"]

# Static files ---------------------------------------------------------------

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# Security -------------------------------------------------------------------

BEHIND_HTTPS_PROXY = envbool("BEHIND_HTTPS_PROXY", False)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if BEHIND_HTTPS_PROXY else None
# The addresses whose X-Forwarded-For and X-Forwarded-Proto the server believes (uvicorn's proxy
# headers, set up by historyhub.serving.gunicorn_worker): nobody's unless a proxy is in front.
FORWARDED_ALLOW_IPS = envlist("FORWARDED_ALLOW_IPS", ["127.0.0.1"] if BEHIND_HTTPS_PROXY else [])
if FORWARDED_ALLOW_IPS and not BEHIND_HTTPS_PROXY:
    raise ImproperlyConfigured("FORWARDED_ALLOW_IPS names a proxy: set BEHIND_HTTPS_PROXY=True too, or leave it empty")
for _address in FORWARDED_ALLOW_IPS:
    try:
        if _address != "*":
            ipaddress.ip_network(_address)  # as uvicorn reads it: 10.0.0.0/8, not 10.0.0.1/8
    except ValueError:
        raise ImproperlyConfigured(f"FORWARDED_ALLOW_IPS holds addresses or networks, not {_address!r}") from None
SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", not DEBUG)
SESSION_COOKIE_SECURE = envbool("SECURE_COOKIES", not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", not DEBUG)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
# Hosts whose images, audio and video session pages load as they open; media from any other host waits
# for a click (docs/dashboard.md, "Media"). Host names, "*.example.com" for its subdomains, ":port" if not
# the default; the Content-Security-Policy names them.
MEDIA_ALLOWED_HOSTS = [host.lower() for host in envlist("MEDIA_ALLOWED_HOSTS", [])]
for _host in MEDIA_ALLOWED_HOSTS:
    if not re.fullmatch(r"(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:[0-9]{1,5})?", _host):
        raise ImproperlyConfigured(f"MEDIA_ALLOWED_HOSTS holds host names like media.example.com, not {_host!r}")

# Encryption at rest (docs/configuration.md, "Encryption at rest") ------------------

# Fernet keys, comma separated: the first encrypts the secrets kept in the database (webhook signing secrets,
# Slack credentials; historyhub.encryption), every one decrypts. A key is never echoed in an error.
FIELD_ENCRYPTION_KEYS = envlist("FIELD_ENCRYPTION_KEYS", [])
DEVELOPMENT_FIELD_ENCRYPTION_KEY_FILE = DATA_DIR / "field-encryption-key"


def development_key(path, make):
    """With DEBUG on and no keys set, one key (``make()``) made once in the data directory (so `make run` needs no
    setup) and read from there afterwards, so what it encrypted or signed stays readable. Two processes starting at
    once agree: the file appears whole (a link to a finished file) or not at all."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        draft = path.with_name(f"{path.name}.{os.getpid()}")
        # Readable by its owner only, from the start.
        with os.fdopen(os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as file:
            file.write(make() + "\n")
        try:
            os.link(draft, path)
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    return path.read_text().strip()


if not FIELD_ENCRYPTION_KEYS:
    if not DEBUG:
        raise ImproperlyConfigured(
            "FIELD_ENCRYPTION_KEYS is required when DEBUG is off: make one with python -c "
            "'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())'"
        )
    FIELD_ENCRYPTION_KEYS = [
        development_key(DEVELOPMENT_FIELD_ENCRYPTION_KEY_FILE, lambda: Fernet.generate_key().decode())
    ]
for _position, _key in enumerate(FIELD_ENCRYPTION_KEYS, start=1):
    try:
        Fernet(_key)
    except ValueError:
        raise ImproperlyConfigured(
            f"FIELD_ENCRYPTION_KEYS holds Fernet keys (32 url-safe base64-encoded bytes each), comma separated: "
            f"key {_position} of {len(FIELD_ENCRYPTION_KEYS)} is not one"
        ) from None

# Receipts (docs/receipts.md, "Keys") ------------------------------------------------

# Ed25519 private keys, each the url-safe base64 of its 32-byte seed (padding optional), comma separated: the first
# signs the receipts of client actions, every one is published at /.well-known/jwks.json, so receipts signed before a
# rotation still verify (historyhub.approvals.signing_keys). A key is never echoed in an error.
RECEIPT_SIGNING_KEYS = envlist("RECEIPT_SIGNING_KEYS", [])
DEVELOPMENT_RECEIPT_SIGNING_KEY_FILE = DATA_DIR / "receipt-signing-key"
# 32 random bytes in url-safe base64: every 32 bytes are an Ed25519 private key.
MAKE_RECEIPT_SIGNING_KEY = "python -c 'import secrets; print(secrets.token_urlsafe(32))'"


def receipt_key_bytes(key):
    """The 32 bytes of a key written as url-safe base64 (a receipt signing key's seed, a Fernet key), or None."""
    if not re.fullmatch(r"[A-Za-z0-9_-]{43}=?", key):
        return None
    return base64.urlsafe_b64decode(key.rstrip("=") + "=")


if not RECEIPT_SIGNING_KEYS:
    if not DEBUG:
        raise ImproperlyConfigured(
            f"RECEIPT_SIGNING_KEYS is required when DEBUG is off: make one with {MAKE_RECEIPT_SIGNING_KEY}"
        )
    RECEIPT_SIGNING_KEYS = [development_key(DEVELOPMENT_RECEIPT_SIGNING_KEY_FILE, lambda: secrets.token_urlsafe(32))]
for _position, _key in enumerate(RECEIPT_SIGNING_KEYS, start=1):
    _seed = receipt_key_bytes(_key)
    if _seed is None:
        raise ImproperlyConfigured(
            f"RECEIPT_SIGNING_KEYS holds Ed25519 private keys (32 url-safe base64-encoded bytes each), comma "
            f"separated: key {_position} of {len(RECEIPT_SIGNING_KEYS)} is not one"
        )
    # One secret for two purposes would let whoever reads one of them sign receipts.
    if _seed in {receipt_key_bytes(fernet_key) for fernet_key in FIELD_ENCRYPTION_KEYS}:
        raise ImproperlyConfigured(
            f"RECEIPT_SIGNING_KEYS must not reuse a key of FIELD_ENCRYPTION_KEYS: key {_position} of "
            f"{len(RECEIPT_SIGNING_KEYS)} does"
        )

# HistoryHub limits (docs/api.md, "Limits") -------------------------------------

HISTORYHUB_MAX_BODY_BYTES = envint("HISTORYHUB_MAX_BODY_BYTES", 10 * 1024 * 1024)
# The request line and headers together (historyhub.serving.protocol: 414 or 431 beyond).
HISTORYHUB_MAX_HEADER_BYTES = envint("HISTORYHUB_MAX_HEADER_BYTES", 64 * 1024, minimum=1024)
HISTORYHUB_MAX_ITEMS_PER_REQUEST = envint("HISTORYHUB_MAX_ITEMS_PER_REQUEST", 1000)
HISTORYHUB_MAX_ITEM_BYTES = envint("HISTORYHUB_MAX_ITEM_BYTES", 1024 * 1024)
# Seconds between the progress notifications of an /mcp tool that waits for a person (docs/clients.md, "MCP").
HISTORYHUB_MCP_PROGRESS_SECONDS = envint("HISTORYHUB_MCP_PROGRESS_SECONDS", 15, minimum=1)
# A client action's arguments, description, comment, response and response schema, each, serialised.
HISTORYHUB_MAX_ACTION_FIELD_BYTES = envint("HISTORYHUB_MAX_ACTION_FIELD_BYTES", 1024 * 1024)
# How deep a JSON value may nest; deeper ones are refused when they come in (historyhub.lib.jsonvalues).
HISTORYHUB_MAX_JSON_DEPTH = envint("HISTORYHUB_MAX_JSON_DEPTH", 100)
# Idempotency-Key records are kept at least this long, then pruned (docs/idempotency.md).
HISTORYHUB_IDEMPOTENCY_TTL_HOURS = envint("HISTORYHUB_IDEMPOTENCY_TTL_HOURS", 24)
# Audit rows older than this are pruned by the sweep (docs/data.md).
HISTORYHUB_AUDIT_RETENTION_DAYS = envint("HISTORYHUB_AUDIT_RETENTION_DAYS", 365, minimum=1)
# What one API key or one person may hold open at once in the whole installation: waits (?wait=) and the
# dashboard's live streams; beyond it 429 (docs/live-updates.md, "Caps").
HISTORYHUB_MAX_WAITS_PER_KEY = envint("HISTORYHUB_MAX_WAITS_PER_KEY", 200, minimum=1)
HISTORYHUB_MAX_STREAMS_PER_USER = envint("HISTORYHUB_MAX_STREAMS_PER_USER", 10, minimum=1)
if HISTORYHUB_IDEMPOTENCY_TTL_HOURS < 24:
    raise ImproperlyConfigured("HISTORYHUB_IDEMPOTENCY_TTL_HOURS must be at least 24: keys are kept that long")
# Django's own cap on request.body sits above ours so our 413 answers first.
DATA_UPLOAD_MAX_MEMORY_SIZE = HISTORYHUB_MAX_BODY_BYTES + 1024

# API rate limits (docs/operations.md): each API key may make this many
# requests per period; an empty API_RATE_LIMITS turns them off.
HISTORYHUB_API_RATE_LIMITS = envlist("API_RATE_LIMITS", ["1000/10s"])
for _rate in HISTORYHUB_API_RATE_LIMITS:
    if not re.fullmatch(r"[1-9][0-9]*/([1-9][0-9]*)?(s|sec|m|min|h|hour|d|day)", _rate):
        raise ImproperlyConfigured(f"API_RATE_LIMITS holds rates like 100/s or 3000/min, not {_rate!r}")

# The cache holds the rate limits' counts: Redis when CACHE_URL names one, shared
# by every process; otherwise each process keeps its own counts in memory.
CACHE_URL = os.environ.get("CACHE_URL", "")
if CACHE_URL and not CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
    raise ImproperlyConfigured(f"CACHE_URL must be a redis:// URL, not {CACHE_URL!r}")
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": CACHE_URL,
        "KEY_PREFIX": "historyhub",
        # A cache that does not answer must not hold requests up: the limits give way instead.
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
    }
    if CACHE_URL
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
}

# Notifications (docs/notifications.md) ---------------------------------------

# The dashboard's address as people reach it: links in webhooks, email and Slack messages start with it.
HISTORYHUB_PUBLIC_URL = os.environ.get("HISTORYHUB_PUBLIC_URL", "http://localhost:8000").rstrip("/")
if not re.fullmatch(r"https?://[^/\s]+(/[^\s]*)?", HISTORYHUB_PUBLIC_URL):
    raise ImproperlyConfigured(f"HISTORYHUB_PUBLIC_URL must be an http(s) URL, not {HISTORYHUB_PUBLIC_URL!r}")
# Seconds after a failed attempt before the next; one more attempt than delays, then the delivery failed.
try:
    WEBHOOK_RETRY_DELAYS = [
        int(part) for part in envlist("WEBHOOK_RETRY_DELAYS", ["5", "300", "1800", "7200", "18000", "36000", "36000"])
    ]
except ValueError:
    raise ImproperlyConfigured("WEBHOOK_RETRY_DELAYS holds whole seconds, comma separated") from None
if any(delay < 0 for delay in WEBHOOK_RETRY_DELAYS):
    raise ImproperlyConfigured("WEBHOOK_RETRY_DELAYS holds seconds of 0 or more")
WEBHOOK_TIMEOUT_SECONDS = envint("WEBHOOK_TIMEOUT_SECONDS", 15, minimum=1)
# Loopback, private and link-local destinations are refused unless this is True (tests, closed networks).
WEBHOOKS_ALLOW_PRIVATE_NETWORKS = envbool("WEBHOOKS_ALLOW_PRIVATE_NETWORKS", False)
# How long a worker holds the rows it claimed; a killed worker's rows are sent again after it.
NOTIFICATIONS_LEASE_SECONDS = envint("NOTIFICATIONS_LEASE_SECONDS", 60, minimum=1)
# Deliveries one worker sends at once, in all (threads, each with its own database connection), and at most
# to one destination (a webhook's host:port, an email or Slack channel): a slow receiver takes only its own.
NOTIFICATIONS_SEND_THREADS = envint("NOTIFICATIONS_SEND_THREADS", 8, minimum=1)
NOTIFICATIONS_DESTINATION_SLOTS = envint("NOTIFICATIONS_DESTINATION_SLOTS", 2, minimum=1)
# Slack's Web API; tests point it at a local stand-in.
SLACK_API_URL = os.environ.get("SLACK_API_URL", "https://slack.com/api/")
# The installation's Slack app: its bot token and signing secret. Empty: the ones operators keep in the admin
# (Slack app), if any; a project's slack channel names only the Slack channel to post in.
SLACK_BOT_TOKEN = os.environ.get("SLACK_BOT_TOKEN", "")
SLACK_SIGNING_SECRET = os.environ.get("SLACK_SIGNING_SECRET", "")
# Email through Django's SMTP backend, set up from the environment.
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = envint("EMAIL_PORT", 25, minimum=1)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = envbool("EMAIL_USE_TLS", False)
EMAIL_TIMEOUT = envint("EMAIL_TIMEOUT", 15, minimum=1)
# People who prefer a digest get one mail once the oldest event in it is this old.
EMAIL_DIGEST_SECONDS = envint("EMAIL_DIGEST_SECONDS", 3600)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "HistoryHub <historyhub@localhost>")

# Credentials never reach a log or an error page: Authorization headers and API
# keys are redacted from every log line and from Django's error reports.
DEFAULT_EXCEPTION_REPORTER = "historyhub.redaction.CredentialRedactingReporter"
DEFAULT_EXCEPTION_REPORTER_FILTER = "historyhub.redaction.CredentialRedactingReporterFilter"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"redact_credentials": {"()": "historyhub.redaction.RedactCredentials"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["redact_credentials"]}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # Django's own console handler would print the "django" logger's records
    # without the filter (ninja logs a malformed Authorization header there).
    "loggers": {"django": {"handlers": [], "level": os.environ.get("LOG_LEVEL", "INFO")}},
}
