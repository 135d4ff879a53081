//! TLS for the live commands that open their own connections (`record
//! wss://`, and the proxy's HTTPS upstreams): rustls with ring and the
//! webpki roots, the same trust as `record https://` (ureq's rustls).

use std::net::TcpStream;
use std::sync::Arc;
use std::time::Duration;
use tokio_rustls::rustls;

/// The TLS client configuration of `record wss://` and of the proxy's
/// HTTPS upstreams: ring, the webpki roots (as `record https://` trusts
/// them through ureq), the `alpn` protocols offered in order; with
/// `insecure`, any certificate.
pub fn config(insecure: bool, alpn: &[&[u8]]) -> Arc<tokio_rustls::rustls::ClientConfig> {
    use tokio_rustls::rustls::{self, ClientConfig, RootCertStore};
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .unwrap_or_else(|_| {
            ClientConfig::builder_with_provider(provider.clone())
                .with_protocol_versions(rustls::ALL_VERSIONS)
                .expect("ring supports TLS 1.2 and 1.3")
        });
    let mut config = if insecure {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(AnyCertificate(provider)))
            .with_no_client_auth()
    } else {
        let roots = RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        builder.with_root_certificates(roots).with_no_client_auth()
    };
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    Arc::new(config)
}

/// `--insecure`: a verifier that accepts every certificate (signatures
/// are still checked with the provider's algorithms).
#[derive(Debug)]
struct AnyCertificate(Arc<tokio_rustls::rustls::crypto::CryptoProvider>);

impl tokio_rustls::rustls::client::danger::ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _: &tokio_rustls::rustls::pki_types::CertificateDer<'_>,
        _: &[tokio_rustls::rustls::pki_types::CertificateDer<'_>],
        _: &tokio_rustls::rustls::pki_types::ServerName<'_>,
        _: &[u8],
        _: tokio_rustls::rustls::pki_types::UnixTime,
    ) -> Result<tokio_rustls::rustls::client::danger::ServerCertVerified, tokio_rustls::rustls::Error>
    {
        Ok(tokio_rustls::rustls::client::danger::ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &tokio_rustls::rustls::pki_types::CertificateDer<'_>,
        dss: &tokio_rustls::rustls::DigitallySignedStruct,
    ) -> Result<
        tokio_rustls::rustls::client::danger::HandshakeSignatureValid,
        tokio_rustls::rustls::Error,
    > {
        tokio_rustls::rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &tokio_rustls::rustls::pki_types::CertificateDer<'_>,
        dss: &tokio_rustls::rustls::DigitallySignedStruct,
    ) -> Result<
        tokio_rustls::rustls::client::danger::HandshakeSignatureValid,
        tokio_rustls::rustls::Error,
    > {
        tokio_rustls::rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<tokio_rustls::rustls::SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// A blocking TLS connection over `tcp` to `host` (a name or an IP
/// address), its handshake done on the first read or write.
///
/// # Errors
/// `host` is no server name.
pub fn stream(
    tcp: TcpStream,
    host: &str,
    insecure: bool,
) -> Result<rustls::StreamOwned<rustls::ClientConnection, TcpStream>, String> {
    let name = rustls::pki_types::ServerName::try_from(host.to_string())
        .map_err(|e| format!("{host}: not a server name: {e}"))?;
    let conn = rustls::ClientConnection::new(config(insecure, &[b"http/1.1"]), name)
        .map_err(|e| format!("TLS: {e}"))?;
    Ok(rustls::StreamOwned::new(conn, tcp))
}

impl super::socket::Timed for rustls::StreamOwned<rustls::ClientConnection, TcpStream> {
    fn set_timeout(&self, d: Duration) {
        let _ = self.sock.set_read_timeout(Some(d));
    }
}
