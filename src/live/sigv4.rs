//! AWS Signature Version 4 for `record`'s requests to Amazon Bedrock: the
//! `Authorization` header an AWS endpoint checks, made from the standard
//! environment variables (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
//! `AWS_SESSION_TOKEN`, `AWS_REGION` / `AWS_DEFAULT_REGION`).
//!
//! The steps are AWS's ("Create a signed AWS API request", IAM User
//! Guide): a canonical request (method, the path URI-encoded again, the
//! query sorted, the signed headers in lower case and sorted, the
//! payload's SHA-256), a string to sign over its hash and the credential
//! scope (`DATE/REGION/SERVICE/aws4_request`), a signing key derived by
//! HMAC-SHA256 from the secret through the date, region and service, and
//! the signature. HMAC and SHA-256 are `ring`'s, already built for TLS;
//! the tests hold the result to AWS's published SigV4 test-suite vectors.
//!
//! What it does not do: S3's single-encoded paths, path normalization
//! (`/a/../b`), chunked payload signing, presigned URLs. Nothing here
//! prints a credential: [`Credentials`]' `Debug` shows the access key id's
//! first four characters only.

use std::time::SystemTime;

/// The signing algorithm's name, first in `Authorization`.
pub const ALGORITHM: &str = "AWS4-HMAC-SHA256";

/// AWS credentials and the region to sign for.
#[derive(Clone)]
pub struct Credentials {
    /// `AWS_ACCESS_KEY_ID`.
    pub access_key_id: String,
    /// `AWS_SECRET_ACCESS_KEY`: never sent, never saved.
    pub secret_access_key: String,
    /// `AWS_SESSION_TOKEN`, sent as `X-Amz-Security-Token` (temporary
    /// credentials).
    pub session_token: Option<String>,
    /// `AWS_REGION`, else `AWS_DEFAULT_REGION`; `None`: told from the
    /// endpoint's host ([`region_of_host`]).
    pub region: Option<String>,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let id: String = self.access_key_id.chars().take(4).collect();
        f.debug_struct("Credentials")
            .field("access_key_id", &format!("{id}…"))
            .field("session_token", &self.session_token.as_ref().map(|_| "…"))
            .field("region", &self.region)
            .finish_non_exhaustive()
    }
}

impl Credentials {
    /// The credentials the standard environment variables hold, read
    /// through `var` (`std::env::var` in use; a map in tests): `None` when
    /// `AWS_ACCESS_KEY_ID` or `AWS_SECRET_ACCESS_KEY` is unset or empty.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Option<Credentials> {
        let get = |k: &str| var(k).filter(|v| !v.is_empty());
        Some(Credentials {
            access_key_id: get("AWS_ACCESS_KEY_ID")?,
            secret_access_key: get("AWS_SECRET_ACCESS_KEY")?,
            session_token: get("AWS_SESSION_TOKEN"),
            region: get("AWS_REGION").or_else(|| get("AWS_DEFAULT_REGION")),
        })
    }

    /// [`Credentials::from_vars`] of the process's environment.
    pub fn from_env() -> Option<Credentials> {
        Self::from_vars(|k| std::env::var(k).ok())
    }
}

/// Why a request could not be signed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SignError {
    /// No region in the environment, and the host names none.
    #[error("no AWS region to sign for: set AWS_REGION (or AWS_DEFAULT_REGION); the host `{0}` names none")]
    NoRegion(String),
    /// The URL has no host.
    #[error("the URL has no host to sign")]
    NoHost,
}

/// The region an AWS endpoint's host names: the label before
/// `amazonaws.com` (`bedrock-runtime.us-east-1.amazonaws.com`:
/// `us-east-1`).
pub fn region_of_host(host: &str) -> Option<&str> {
    let labels: Vec<&str> = host.split('.').collect();
    let at = labels.iter().position(|l| *l == "amazonaws")?;
    let region = *labels.get(at.checked_sub(1)?)?;
    (at >= 2 && region.contains('-')).then_some(region)
}

/// The headers that sign a request: `X-Amz-Date`, `X-Amz-Security-Token`
/// (with temporary credentials) and `Authorization`, in that order, for
/// `method` on `url` with `headers` (each signed; `Host` is added from
/// the URL) and `payload`, for AWS service `service` at `now`.
///
/// # Errors
/// No region ([`SignError::NoRegion`]) or no host in the URL.
pub fn sign(
    method: &str,
    url: &str,
    headers: &[(String, String)],
    payload: &[u8],
    creds: &Credentials,
    service: &str,
    now: SystemTime,
) -> Result<Vec<(String, String)>, SignError> {
    let (host, path, query) = split_url(url).ok_or(SignError::NoHost)?;
    let region = match &creds.region {
        Some(r) => r.clone(),
        None => region_of_host(&host)
            .ok_or_else(|| SignError::NoRegion(host.clone()))?
            .to_string(),
    };
    let amz_date = amz_date(now);
    let mut added = vec![("X-Amz-Date".to_string(), amz_date.clone())];
    if let Some(t) = &creds.session_token {
        added.push(("X-Amz-Security-Token".to_string(), t.clone()));
    }
    let mut signed: Vec<(String, String)> = headers
        .iter()
        .chain(added.iter())
        .map(|(n, v)| (n.to_ascii_lowercase(), canonical_value(v)))
        .filter(|(n, _)| n != "host" && n != "authorization")
        .collect();
    signed.push(("host".to_string(), host));
    let scope = Scope {
        date: &amz_date[..8],
        region: &region,
        service,
    };
    let (names, signature) = signature(
        &scope,
        &amz_date,
        &creds.secret_access_key,
        &canonical_request(method, &path, &query, &signed, &hex_sha256(payload)),
    );
    added.push((
        "Authorization".to_string(),
        format!(
            "{ALGORITHM} Credential={}/{}, SignedHeaders={names}, Signature={signature}",
            creds.access_key_id,
            scope.credential_scope()
        ),
    ));
    Ok(added)
}

/// What a signature is scoped to.
struct Scope<'a> {
    /// `YYYYMMDD`.
    date: &'a str,
    region: &'a str,
    service: &'a str,
}

impl Scope<'_> {
    fn credential_scope(&self) -> String {
        format!(
            "{}/{}/{}/aws4_request",
            self.date, self.region, self.service
        )
    }
}

/// A canonical request and its signed header names (`a;b;c`).
struct Canonical {
    text: String,
    names: String,
}

/// The canonical request of `method` on `path` (as sent) and `query` (as
/// sent, without `?`), `headers` as (lower-case name, canonical value),
/// `payload_hash` the payload's hex SHA-256.
fn canonical_request(
    method: &str,
    path: &str,
    query: &str,
    headers: &[(String, String)],
    payload_hash: &str,
) -> Canonical {
    let mut hs = headers.to_vec();
    hs.sort();
    // A name given twice is one line, its values joined by commas.
    let mut lines: Vec<(String, String)> = Vec::new();
    for (n, v) in hs {
        match lines.last_mut() {
            Some((last, values)) if *last == n => {
                values.push(',');
                values.push_str(&v);
            }
            _ => lines.push((n, v)),
        }
    }
    let names = lines
        .iter()
        .map(|(n, _)| n.as_str())
        .collect::<Vec<_>>()
        .join(";");
    let block: String = lines.iter().map(|(n, v)| format!("{n}:{v}\n")).collect();
    let path = if path.is_empty() { "/" } else { path };
    let text = format!(
        "{method}\n{}\n{}\n{block}\n{names}\n{payload_hash}",
        uri_encode(path.as_bytes(), false),
        canonical_query(query)
    );
    Canonical { text, names }
}

/// The signed header names and the hex signature of `canonical`.
fn signature(
    scope: &Scope<'_>,
    amz_date: &str,
    secret: &str,
    canonical: &Canonical,
) -> (String, String) {
    let to_sign = format!(
        "{ALGORITHM}\n{amz_date}\n{}\n{}",
        scope.credential_scope(),
        hex_sha256(canonical.text.as_bytes())
    );
    let mut key = hmac(format!("AWS4{secret}").as_bytes(), scope.date.as_bytes());
    for part in [scope.region, scope.service, "aws4_request"] {
        key = hmac(&key, part.as_bytes());
    }
    (
        canonical.names.clone(),
        hex(&hmac(&key, to_sign.as_bytes())),
    )
}

/// The query's parameters, each name and value decoded then encoded as
/// SigV4 wants, sorted by name then value, joined by `&`.
fn canonical_query(query: &str) -> String {
    let mut params: Vec<(String, String)> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            let enc = |s: &str| uri_encode(&percent_decode(s), true);
            (enc(k), enc(v))
        })
        .collect();
    params.sort();
    params
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&")
}

/// `bytes` with every byte but the unreserved ones (`A-Z a-z 0-9 - . _
/// ~`) as `%XX` (upper-case hex); `/` too when `slash`.
fn uri_encode(bytes: &[u8], slash: bool) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) || (b == b'/' && !slash) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `s` with its `%XX` escapes decoded (an invalid one kept as written).
fn percent_decode(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (
            b[i],
            b.get(i + 1).and_then(|c| hex(*c)),
            b.get(i + 2).and_then(|c| hex(*c)),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// A header value as signed: trimmed, runs of spaces one space.
fn canonical_value(v: &str) -> String {
    v.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `(host[:port], path, query)` of an `http(s)://` URL, the port kept
/// only when it is not the scheme's default, the user part dropped.
fn split_url(url: &str) -> Option<(String, String, String)> {
    let (scheme, rest) = url.split_once("://")?;
    let rest = rest.split('#').next().unwrap_or(rest);
    let (authority, path_query) = match rest.find(['/', '?']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if authority.is_empty() {
        return None;
    }
    let default = match scheme.to_ascii_lowercase().as_str() {
        "https" => ":443",
        _ => ":80",
    };
    let host = authority
        .strip_suffix(default)
        .unwrap_or(authority)
        .to_ascii_lowercase();
    let (path, query) = path_query.split_once('?').unwrap_or((path_query, ""));
    Some((host, path.to_string(), query.to_string()))
}

/// `now` as `YYYYMMDDTHHMMSSZ` (UTC).
fn amz_date(now: SystemTime) -> String {
    let secs = now
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}{month:02}{day:02}T{:02}{:02}{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

fn hmac(key: &[u8], data: &[u8]) -> Vec<u8> {
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, key);
    ring::hmac::sign(&key, data).as_ref().to_vec()
}

fn hex_sha256(data: &[u8]) -> String {
    hex(ring::digest::digest(&ring::digest::SHA256, data).as_ref())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The credentials and time of AWS's SigV4 test suite
    /// (`aws-sig-v4-test-suite`, also in awslabs/aws-c-auth): 2015-08-30
    /// 12:36:00 UTC, us-east-1, service `service`.
    fn suite() -> (Credentials, SystemTime) {
        let creds = Credentials {
            access_key_id: "AKIDEXAMPLE".into(),
            secret_access_key: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".into(),
            session_token: None,
            region: Some("us-east-1".into()),
        };
        let at = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_440_938_160);
        (creds, at)
    }

    fn authorization(method: &str, url: &str, headers: &[(&str, &str)], body: &[u8]) -> String {
        let (creds, at) = suite();
        let headers: Vec<(String, String)> = headers
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        let out = sign(method, url, &headers, body, &creds, "service", at).unwrap();
        assert_eq!(out[0], ("X-Amz-Date".into(), "20150830T123600Z".into()));
        out.last().unwrap().1.clone()
    }

    const PLAIN: &str = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=";

    #[test]
    fn the_aws_test_suite_vectors_sign_as_published() {
        // get-vanilla
        assert_eq!(
            authorization("GET", "https://example.amazonaws.com/", &[], b""),
            format!("{PLAIN}5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")
        );
        // post-vanilla
        assert_eq!(
            authorization("POST", "https://example.amazonaws.com/", &[], b""),
            format!("{PLAIN}5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b")
        );
        // get-vanilla-query-order-key-case: the query is sorted.
        assert_eq!(
            authorization(
                "GET",
                "https://example.amazonaws.com/?Param2=value2&Param1=value1",
                &[],
                b""
            ),
            format!("{PLAIN}b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500")
        );
        // get-utf8: the path `/ሴ`, sent as its UTF-8 bytes (here already
        // encoded once, as a client sends it, which the signer encodes
        // again: AWS's canonical path for other services than S3).
        assert_eq!(
            canonical_request("GET", "/\u{1234}", "", &[], "")
                .text
                .lines()
                .nth(1),
            Some("/%E1%88%B4")
        );
    }

    #[test]
    fn a_signed_body_and_a_session_token_are_signed_headers() {
        // post-x-www-form-urlencoded as aws-c-auth's suite signs it (the
        // body's hash and length among the signed headers).
        let body = b"Param1=value1";
        assert_eq!(
            hex_sha256(body),
            "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e"
        );
        let auth = authorization(
            "POST",
            "https://example.amazonaws.com/",
            &[
                ("Content-Type", "application/x-www-form-urlencoded"),
                ("Content-Length", "13"),
                (
                    "X-Amz-Content-Sha256",
                    "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e",
                ),
            ],
            body,
        );
        assert!(auth.ends_with("SignedHeaders=content-length;content-type;host;x-amz-content-sha256;x-amz-date, Signature=d3875051da38690788ef43de4db0d8f280229d82040bfac253562e56c3f20e0b"), "{auth}");
        // A session token goes out and is signed.
        let (mut creds, at) = suite();
        creds.session_token = Some("TOKEN".into());
        let out = sign(
            "POST",
            "https://h.example/",
            &[],
            b"",
            &creds,
            "bedrock",
            at,
        )
        .unwrap();
        assert_eq!(out[1], ("X-Amz-Security-Token".into(), "TOKEN".into()));
        assert!(out[2]
            .1
            .contains("SignedHeaders=host;x-amz-date;x-amz-security-token,"));
    }

    #[test]
    fn a_bedrock_path_is_encoded_again_and_the_region_told_from_the_host() {
        let c = canonical_request(
            "POST",
            "/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse-stream",
            "",
            &[],
            "",
        );
        assert_eq!(
            c.text.lines().nth(1),
            Some("/model/anthropic.claude-3-5-sonnet-20240620-v1%253A0/converse-stream")
        );
        assert_eq!(
            region_of_host("bedrock-runtime.eu-west-3.amazonaws.com"),
            Some("eu-west-3")
        );
        assert_eq!(region_of_host("127.0.0.1:8080"), None);
        let (mut creds, at) = suite();
        creds.region = None;
        let url = "https://bedrock-runtime.eu-west-3.amazonaws.com/model/m/converse-stream";
        let out = sign("POST", url, &[], b"{}", &creds, "bedrock", at).unwrap();
        assert!(out[1]
            .1
            .contains("/20150830/eu-west-3/bedrock/aws4_request"));
        assert_eq!(
            sign(
                "POST",
                "http://127.0.0.1:9/x",
                &[],
                b"",
                &creds,
                "bedrock",
                at
            ),
            Err(SignError::NoRegion("127.0.0.1:9".into()))
        );
    }

    #[test]
    fn a_converse_stream_request_signs_as_botocore_signs_it() {
        // botocore 1.44.18's `SigV4Auth(creds, "bedrock", "eu-central-1")`
        // on this request, run on this machine: X-Amz-Date
        // 20261207T140626Z and this signature.
        let creds = Credentials {
            access_key_id: "AKIAIOSFODNN7EXAMPLE".into(),
            secret_access_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into(),
            session_token: Some("TOKEN123".into()),
            region: Some("eu-central-1".into()),
        };
        let at = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_796_652_386);
        let url = "https://bedrock-runtime.eu-central-1.amazonaws.com/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream";
        let headers = [
            ("Content-Type".to_string(), "application/json".to_string()),
            (
                "Accept".to_string(),
                "application/vnd.amazon.eventstream".to_string(),
            ),
        ];
        let body = br#"{"messages":[{"content":[{"text":"hi"}],"role":"user"}]}"#;
        let out = sign("POST", url, &headers, body, &creds, "bedrock", at).unwrap();
        assert_eq!(out[0].1, "20261207T140626Z");
        assert_eq!(
            out[2].1,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20261207/eu-central-1/bedrock/aws4_request, SignedHeaders=accept;content-type;host;x-amz-date;x-amz-security-token, Signature=b063bbe71de883bc3bf47d76d3ae7329880988381b89fe6822d60df9b11127be"
        );
    }

    #[test]
    fn hosts_keep_a_port_only_when_it_is_not_the_default() {
        let host = |u: &str| split_url(u).unwrap().0;
        assert_eq!(host("https://A.example:443/x"), "a.example");
        assert_eq!(host("http://a.example:80"), "a.example");
        assert_eq!(host("http://u:p@127.0.0.1:8080/x?y=1"), "127.0.0.1:8080");
        assert_eq!(split_url("http://h/p?b=2&a=1").unwrap().2, "b=2&a=1");
        assert_eq!(canonical_query("b=2&a=%7e&a=1"), "a=1&a=~&b=2");
    }

    #[test]
    fn the_environment_gives_credentials_only_with_both_keys() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert!(Credentials::from_vars(env(&[("AWS_ACCESS_KEY_ID", "A")])).is_none());
        let c = Credentials::from_vars(env(&[
            ("AWS_ACCESS_KEY_ID", "AKIAXXXXSECRET"),
            ("AWS_SECRET_ACCESS_KEY", "S"),
            ("AWS_DEFAULT_REGION", "us-west-2"),
        ]))
        .unwrap();
        assert_eq!(c.region.as_deref(), Some("us-west-2"));
        let shown = format!("{c:?}");
        assert!(
            shown.contains("AKIA…") && !shown.contains("SECRET"),
            "{shown}"
        );
    }
}
