//! gqlnav serve
