import Alamofire
