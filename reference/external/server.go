package external

import (
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Op is one entry of the operation log.
type Op struct {
	Op     string    `json:"op"` // observe, create, delete
	Name   string    `json:"name"`
	Owner  string    `json:"owner"`  // who asked
	Result string    `json:"result"` // ok, exists, notfound, failed
	At     time.Time `json:"at"`
}

// Config changes how the system behaves.
type Config struct {
	DeleteLatency metav1.Duration `json:"deleteLatency"`
	FailDeletes   bool            `json:"failDeletes"`
}

// Resource is an external resource.
type Resource struct {
	Name  string `json:"name"`
	Owner string `json:"owner"`
}

// Server is the fake external system.
type Server struct {
	mu        sync.Mutex
	resources map[string]Resource
	log       []Op
	config    Config
}

// NewServer makes an empty system.
func NewServer() *Server { return &Server{resources: map[string]Resource{}} }

func (s *Server) record(op, name, owner, result string) {
	s.log = append(s.log, Op{Op: op, Name: name, Owner: owner, Result: result, At: time.Now()})
}

// Handler serves the API described in the package documentation.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /resources/{name}", s.observe)
	mux.HandleFunc("POST /resources/{name}", s.create)
	mux.HandleFunc("DELETE /resources/{name}", s.delete)
	mux.HandleFunc("PUT /config", func(w http.ResponseWriter, r *http.Request) {
		var c Config
		if err := json.NewDecoder(r.Body).Decode(&c); err != nil {
			http.Error(w, "config does not parse: "+err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.config = c
		s.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /log", func(w http.ResponseWriter, _ *http.Request) {
		s.mu.Lock()
		ops := slices.Clone(s.log)
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, ops)
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	return mux
}

func (s *Server) observe(w http.ResponseWriter, r *http.Request) {
	name, owner := r.PathValue("name"), r.URL.Query().Get("owner")
	s.mu.Lock()
	defer s.mu.Unlock()
	res, ok := s.resources[name]
	if !ok {
		s.record("observe", name, owner, "notfound")
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	s.record("observe", name, owner, "ok")
	writeJSON(w, http.StatusOK, res)
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	name, owner := r.PathValue("name"), r.URL.Query().Get("owner")
	s.mu.Lock()
	defer s.mu.Unlock()
	if res, ok := s.resources[name]; ok {
		s.record("create", name, owner, "exists")
		writeJSON(w, http.StatusConflict, res)
		return
	}
	s.resources[name] = Resource{Name: name, Owner: owner}
	s.record("create", name, owner, "ok")
	writeJSON(w, http.StatusCreated, s.resources[name])
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request) {
	name, owner := r.PathValue("name"), r.URL.Query().Get("owner")
	s.mu.Lock()
	cfg := s.config
	if cfg.FailDeletes {
		s.record("delete", name, owner, "failed")
		s.mu.Unlock()
		http.Error(w, "the external system refuses deletes (failDeletes)", http.StatusInternalServerError)
		return
	}
	s.mu.Unlock()
	time.Sleep(cfg.DeleteLatency.Duration)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.resources[name]; !ok {
		s.record("delete", name, owner, "notfound")
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	delete(s.resources, name)
	s.record("delete", name, owner, "ok")
	w.WriteHeader(http.StatusNoContent)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v) // a client gone is nothing to act on
}
